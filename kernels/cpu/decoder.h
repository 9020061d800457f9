// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cpu/decoder_model.h"
#include "cpu/thread_pool.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace kwb::cpu {

// The CPU backend's decoder: batched prefill and one-token decode steps over a KV cache, fp32,
// the linear layers and attention split over the pool's threads.
//
// Prefill runs all batch x prompt_len tokens through each layer at once (matrix-matrix, weights
// reused across tokens); decode runs one token per sequence (matrix-vector, bound by reading
// the weights). The LM head is applied only to the last position of each sequence, as a server
// does, since only those logits pick the next token.
class DecoderEngine {
public:
    DecoderEngine(const DecoderWeights& weights, int batch, int max_seq, ThreadPool& pool);

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

private:
    // Runs the call's sequences (rows x hidden in x_) of `per_seq` positions each, starting at
    // their slots' lengths, through every layer; then the LM head on the last row of each.
    void forward(int per_seq);
    void use_slots(std::size_t count, std::span<const int> slots, const char* what);
    void linear(const float* x, int rows, int in, const std::vector<float>& w, int out, float* y);
    void attention(int layer, int per_seq);
    void rope(float* v, int rows, int width, int per_seq);
    float* cache_k(int layer, int b, int kv_head);
    float* cache_v(int layer, int b, int kv_head);

    const DecoderWeights& w_;
    DecoderConfig c_;
    int batch_;
    int max_seq_;
    ThreadPool& pool_;
    std::vector<int> len_; // [batch]: positions held by each slot
    std::vector<int> slots_; // the call's sequences' slots
    std::vector<float> rope_cos_, rope_sin_; // [max_seq][head_dim / 2]
    std::vector<float> k_cache_, v_cache_; // [layer][batch][kv_head][max_seq][head_dim]
    std::vector<float> x_, xn_, q_, k_, v_, attn_, tmp_, gate_, up_; // activations, rows x width
    std::vector<float> last_, logits_; // [batch][hidden], [batch][vocab]
    std::vector<std::vector<float>> scores_; // per worker: max_seq
};

} // namespace kwb::cpu
