// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cpu/thread_pool.h"

#include <vector>

namespace kwb::cpu {

// Causal self-attention prefill, fp32: O = softmax(Q K^T / sqrt(d) + causal mask) V per head.
// Q, K, V and O are laid out [heads][seq][head_dim], row-major.
struct AttentionShape {
    int heads = 1;
    int seq = 1;
    int head_dim = 1;
};

// The correctness oracle: for each query, every score, an explicit max-subtracted softmax in
// double, then the weighted sum of V. Quadratic memory per row, nothing fused.
void attention_reference(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o);

// The CPU backend's prefill, flash style: a tile of tile_q queries walks the K/V tiles of
// tile_k keys up to the diagonal, keeping a running max and sum per query (online softmax) so
// the seq x seq score matrix is never stored; tiles wholly above the diagonal are skipped. One
// task per (head, query tile). tile_q trades K/V reuse against the scratch that must stay in
// L1; tile_k trades the per-tile rescale of the accumulators against masked waste on the
// diagonal tile. Sequence lengths need not be multiples of the tiles.
class FlashAttention {
public:
    FlashAttention(int tile_q, int tile_k, int head_dim, ThreadPool& pool);

    void run(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o);

private:
    struct Scratch {
        std::vector<float> scores; // tile_q x tile_k
        std::vector<float> k_t; // head_dim x tile_k: the K tile transposed
        std::vector<float> acc; // tile_q x head_dim: unnormalised output
        std::vector<float> row_max; // tile_q
        std::vector<float> row_sum; // tile_q
    };
    void run_tile(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o, int head,
        int i0, Scratch& s) const;

    int tile_q_;
    int tile_k_;
    ThreadPool& pool_;
    std::vector<Scratch> scratch_;
};

} // namespace kwb::cpu
