// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cpu/thread_pool.h"

#include <vector>

namespace kwb::cpu {

// C[M x N] = A[M x K] * B[K x N]; fp32, row-major, dense leading dimensions.

// The correctness oracle: the textbook triple loop, one dot product per output, nothing clever.
void gemm_reference(int m, int n, int k, const float* a, const float* b, float* c);

// The CPU backend's GEMM: cache blocking plus a register-tiled micro-kernel (the structure of
// GotoBLAS / BLIS, and of the CUDA twin's thread-block tiles). `block` is the edge of the square
// cache block (rows of A, columns of B and the shared K slice); each block is packed into
// contiguous panels so the micro-kernel streams through memory. Small blocks pay the packing
// and the accumulator loads/stores more often per flop, large blocks spill out of L1/L2: that
// is the tunable an A/B measures. Any sizes work: partial blocks and tiles are zero-padded.
class BlockedGemm {
public:
    static constexpr int kMr = 4; // rows of the register tile
    static constexpr int kNr = 8; // columns of the register tile: 4x8 accumulators fit 8 SSE registers

    BlockedGemm(int block, ThreadPool& pool);

    void run(int m, int n, int k, const float* a, const float* b, float* c);

private:
    struct Scratch {
        std::vector<float> a_panels;
        std::vector<float> b_panels;
    };
    void run_tile(int m, int n, int k, const float* a, const float* b, float* c, int i0, int j0, Scratch& s) const;

    int block_;
    ThreadPool& pool_;
    std::vector<Scratch> scratch_; // one per worker, sized once
};

} // namespace kwb::cpu
