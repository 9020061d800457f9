// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>

// Small vector loops written so that GCC vectorises them at -O2 without -ffast-math.
//
// At -O2 GCC's "very cheap" vectoriser skips loops whose trip count is not a known multiple of
// the vector width and loops that would need an aliasing check, and no vectoriser reorders a
// floating-point reduction without -ffast-math. So each helper walks W elements per step with
// a fully unrolled inner loop over restrict pointers (straight-line code that the basic-block
// vectoriser packs into SSE/AVX registers), keeps W partial sums where it reduces, and finishes
// the remainder one element at a time. W = 1 is the plain scalar loop.
namespace kwb::cpu::vec {

// sum of a[i] * b[i]
template<int W = 8> inline float dot(const float* __restrict a, const float* __restrict b, std::size_t n)
{
    float acc[W] = {};
    std::size_t i = 0;
    for (; i + W <= n; i += W) {
#pragma GCC unroll 16
        for (int j = 0; j < W; ++j)
            acc[j] += a[i + j] * b[i + j];
    }
    float sum = 0;
#pragma GCC unroll 16
    for (int j = 0; j < W; ++j)
        sum += acc[j];
    for (; i < n; ++i)
        sum += a[i] * b[i];
    return sum;
}

// y[i] += alpha * x[i]
template<int W = 8> inline void axpy(float alpha, const float* __restrict x, float* __restrict y, std::size_t n)
{
    std::size_t i = 0;
    for (; i + W <= n; i += W) {
#pragma GCC unroll 16
        for (int j = 0; j < W; ++j)
            y[i + j] += alpha * x[i + j];
    }
    for (; i < n; ++i)
        y[i] += alpha * x[i];
}

// y[i] *= alpha
template<int W = 8> inline void scale(float alpha, float* __restrict y, std::size_t n)
{
    std::size_t i = 0;
    for (; i + W <= n; i += W) {
#pragma GCC unroll 16
        for (int j = 0; j < W; ++j)
            y[i + j] *= alpha;
    }
    for (; i < n; ++i)
        y[i] *= alpha;
}

} // namespace kwb::cpu::vec
