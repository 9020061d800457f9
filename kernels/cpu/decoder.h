// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cpu/decoder_model.h"
#include "cpu/thread_pool.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kwb::cpu {

// The KV cache's element: the model's fp32, or fp8 e4m3 with a static scale per (layer, K or V,
// KV head), stored and rounded as the cuda backend does (cpu/kv_fp8.h). With fp8 a prefill
// attends its own fp32 K and V (the cuda prefill attends its bf16 ones) and writes the rounded
// ones to the cache; a decode step attends the cache, its own position included.
enum class KvCache { Fp32, Fp8 };

// The CPU backend's decoder: batched prefill and one-token decode steps over a KV cache, fp32,
// the linear layers and attention split over the pool's threads.
//
// Prefill runs all batch x prompt_len tokens through each layer at once (matrix-matrix, weights
// reused across tokens); decode runs one token per sequence (matrix-vector, bound by reading
// the weights). The LM head is applied only to the last position of each sequence, as a server
// does, since only those logits pick the next token.
class DecoderEngine {
public:
    DecoderEngine(const DecoderWeights& weights, int batch, int max_seq, ThreadPool& pool, KvCache kv = KvCache::Fp32);

    // Forgets every sequence (the cache is reused, not cleared: positions are overwritten).
    void reset() { std::fill(len_.begin(), len_.end(), 0); }
    int length() const { return len_[0]; }
    // Slot `slot` (one of `batch` sequences' caches) forgets its sequence: a continuously
    // batched server frees it for the next request.
    void release(int slot) { len_[static_cast<std::size_t>(slot)] = 0; }

    // prompts: sequences of the same length, appended to slots `slots` (empty: 0, 1, ...).
    // Returns [prompts][vocab] logits of the last position of each.
    std::span<const float> prefill(std::span<const std::vector<int>> prompts, std::span<const int> slots = {});

    // One token per sequence of slots `slots` (empty: 0, 1, ...), appended at each one's length.
    // Returns [tokens][vocab] logits.
    std::span<const float> decode(std::span<const int> tokens, std::span<const int> slots = {});

    // Index of the largest logit of the call's sequence b (greedy sampling).
    int argmax(int b) const;

    // Bytes of the KV cache and the activations (the weights are the caller's).
    std::size_t bytes() const;

    // fp8: sets the scales from a prefill of `prompts` (the cuda backend calibrates on request
    // 0's), which measures each (layer, K or V, KV head)'s largest |value|; forgets every sequence.
    void calibrate_kv_scales(std::span<const std::vector<int>> prompts);
    // [layer][K, V][kv_head]; 1 until calibrated (fp32: unused).
    std::span<const float> kv_scales() const { return kv_scale_; }
    KvCache kv_cache() const { return kv_; }

private:
    // Runs the call's sequences (rows x hidden in x_) of `per_seq` positions each, starting at
    // their slots' lengths, through every layer; then the LM head on the last row of each.
    // `prefill`: the call's positions attend their own K and V, not the cache's (fp8 only differs).
    void forward(int per_seq, bool prefill);
    void use_slots(std::size_t count, std::span<const int> slots, const char* what);
    void linear(const float* x, int rows, int in, const std::vector<float>& w, int out, float* y);
    void store_kv(int layer, int per_seq);
    void attention(int layer, int per_seq, bool prefill);
    void rope(float* v, int rows, int width, int per_seq);
    // Offset of position 0 of (layer, slot, kv_head) in the cache, [layer][batch][kv_head][max_seq][head_dim].
    std::size_t cache_at(int layer, int slot, int kv_head) const;

    const DecoderWeights& w_;
    DecoderConfig c_;
    int batch_;
    int max_seq_;
    ThreadPool& pool_;
    std::vector<int> len_; // [batch]: positions held by each slot
    std::vector<int> slots_; // the call's sequences' slots
    std::vector<float> rope_cos_, rope_sin_; // [max_seq][head_dim / 2]
    KvCache kv_;
    std::vector<float> k_cache_, v_cache_; // fp32: [layer][batch][kv_head][max_seq][head_dim]
    std::vector<std::uint8_t> k_fp8_, v_fp8_; // fp8: e4m3 codes, the same layout
    std::vector<float> kv_scale_; // [layer][2][kv_head]
    std::vector<float> kv_amax_; // the same, while calibrating (else empty)
    std::vector<std::vector<float>> kv_rows_; // per worker: a K and a V row decoded from fp8
    std::vector<float> x_, xn_, q_, k_, v_, attn_, tmp_, gate_, up_; // activations, rows x width
    std::vector<float> last_, logits_; // [batch][hidden], [batch][vocab]
    std::vector<std::vector<float>> scores_; // per worker: max_seq
};

} // namespace kwb::cpu
