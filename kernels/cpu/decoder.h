// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cpu/decoder_model.h"
#include "cpu/thread_pool.h"

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
    void reset() { length_ = 0; }
    int length() const { return length_; }

    // prompts: batch sequences of the same length. Returns [batch][vocab] logits of the last
    // position of each.
    std::span<const float> prefill(std::span<const std::vector<int>> prompts);

    // One token per sequence, appended at position length(). Returns [batch][vocab] logits.
    std::span<const float> decode(std::span<const int> tokens);

    // Index of the largest logit of sequence b (greedy sampling).
    int argmax(int b) const;

    // Bytes of the KV cache and the activations (the weights are the caller's).
    std::size_t bytes() const;

private:
    // Runs `tokens` (rows x hidden in x_) of `per_seq` positions per sequence, starting at
    // position length_, through every layer; then the LM head on the last row of each sequence.
    void forward(int per_seq);
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
    int length_ = 0;
    std::vector<float> rope_cos_, rope_sin_; // [max_seq][head_dim / 2]
    std::vector<float> k_cache_, v_cache_; // [layer][batch][kv_head][max_seq][head_dim]
    std::vector<float> x_, xn_, q_, k_, v_, attn_, tmp_, gate_, up_; // activations, rows x width
    std::vector<float> last_, logits_; // [batch][hidden], [batch][vocab]
    std::vector<std::vector<float>> scores_; // per worker: max_seq
};

} // namespace kwb::cpu
