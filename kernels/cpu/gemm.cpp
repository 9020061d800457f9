// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/gemm.h"

#include <algorithm>
#include <cstddef>

namespace kwb::cpu {

void gemm_reference(int m, int n, int k, const float* a, const float* b, float* c)
{
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            // Double accumulation: the oracle should be more accurate than what it checks.
            double sum = 0;
            for (int p = 0; p < k; ++p)
                sum += static_cast<double>(a[static_cast<std::size_t>(i) * k + p])
                    * b[static_cast<std::size_t>(p) * n + j];
            c[static_cast<std::size_t>(i) * n + j] = static_cast<float>(sum);
        }
}

namespace {

constexpr int kMr = BlockedGemm::kMr;
constexpr int kNr = BlockedGemm::kNr;

int round_up(int x, int to)
{
    return (x + to - 1) / to * to;
}

// Copies the mc x kc block of A at (i0, k0) into kMr-row panels, k-major inside a panel, so the
// micro-kernel reads kMr consecutive floats per k. Rows past the matrix are zero.
void pack_a(const float* a, int lda, int i0, int mc, int k0, int kc, float* out)
{
    for (int p = 0; p < mc; p += kMr)
        for (int kk = 0; kk < kc; ++kk)
            for (int r = 0; r < kMr; ++r)
                *out++ = p + r < mc ? a[static_cast<std::size_t>(i0 + p + r) * lda + k0 + kk] : 0.0f;
}

// Copies the kc x nc block of B at (k0, j0) into kNr-column panels; columns past the matrix are zero.
void pack_b(const float* b, int ldb, int k0, int kc, int j0, int nc, float* out)
{
    for (int q = 0; q < nc; q += kNr)
        for (int kk = 0; kk < kc; ++kk) {
            const float* row = b + static_cast<std::size_t>(k0 + kk) * ldb + j0 + q;
            for (int c = 0; c < kNr; ++c)
                *out++ = q + c < nc ? row[c] : 0.0f;
        }
}

// acc[kMr][kNr] = sum over kc of a column of the A panel times a row of the B panel. The inner
// loops are unrolled completely so the accumulator array becomes 32 scalars that GCC keeps in
// registers and packs into SSE vectors at -O2; without the pragmas it stays on the stack and
// every k step loads and stores it, which halves the speed (measured on GCC 12).
void micro_kernel(int kc, const float* __restrict a, const float* __restrict b, float* __restrict out)
{
    float acc[kMr][kNr] = {};
    for (int kk = 0; kk < kc; ++kk) {
#pragma GCC unroll 4
        for (int r = 0; r < kMr; ++r) {
            const float ar = a[r];
#pragma GCC unroll 8
            for (int c = 0; c < kNr; ++c)
                acc[r][c] += ar * b[c];
        }
        a += kMr;
        b += kNr;
    }
    for (int r = 0; r < kMr; ++r)
        for (int c = 0; c < kNr; ++c)
            out[r * kNr + c] = acc[r][c];
}

} // namespace

BlockedGemm::BlockedGemm(int block, ThreadPool& pool)
    : block_(block)
    , pool_(pool)
    , scratch_(static_cast<std::size_t>(pool.size()))
{
    const auto panel
        = static_cast<std::size_t>(round_up(block, kMr > kNr ? kMr : kNr)) * static_cast<std::size_t>(block);
    for (auto& s : scratch_) {
        s.a_panels.resize(panel);
        s.b_panels.resize(panel);
    }
}

void BlockedGemm::run(int m, int n, int k, const float* a, const float* b, float* c)
{
    const int row_blocks = (m + block_ - 1) / block_;
    const int col_blocks = (n + block_ - 1) / block_;
    // One task per C block: tasks write disjoint parts of C, so they need no synchronisation.
    pool_.for_each(static_cast<std::size_t>(row_blocks) * col_blocks, [&](std::size_t task, int worker) {
        const int i0 = static_cast<int>(task / col_blocks) * block_;
        const int j0 = static_cast<int>(task % col_blocks) * block_;
        run_tile(m, n, k, a, b, c, i0, j0, scratch_[static_cast<std::size_t>(worker)]);
    });
}

void BlockedGemm::run_tile(
    int m, int n, int k, const float* a, const float* b, float* c, int i0, int j0, Scratch& s) const
{
    const int mc = std::min(block_, m - i0);
    const int nc = std::min(block_, n - j0);
    for (int i = 0; i < mc; ++i)
        std::fill_n(c + static_cast<std::size_t>(i0 + i) * n + j0, nc, 0.0f);
    float tile[kMr * kNr];
    for (int k0 = 0; k0 < k; k0 += block_) {
        const int kc = std::min(block_, k - k0);
        pack_a(a, k, i0, mc, k0, kc, s.a_panels.data());
        pack_b(b, n, k0, kc, j0, nc, s.b_panels.data());
        for (int p = 0; p < mc; p += kMr)
            for (int q = 0; q < nc; q += kNr) {
                micro_kernel(kc, s.a_panels.data() + static_cast<std::size_t>(p) * kc,
                    s.b_panels.data() + static_cast<std::size_t>(q) * kc, tile);
                // Only the part of the register tile inside C is real; the rest is padding.
                const int rows = std::min(kMr, mc - p);
                const int cols = std::min(kNr, nc - q);
                for (int r = 0; r < rows; ++r) {
                    float* crow = c + static_cast<std::size_t>(i0 + p + r) * n + j0 + q;
                    for (int cc = 0; cc < cols; ++cc)
                        crow[cc] += tile[r * kNr + cc];
                }
            }
    }
}

} // namespace kwb::cpu
