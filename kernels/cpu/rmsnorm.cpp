// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/rmsnorm.h"

#include "cpu/vec_ops.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace kwb::cpu {

void rmsnorm_reference(int rows, int hidden, const float* x, const float* weight, float* y)
{
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + static_cast<std::size_t>(r) * hidden;
        float* yr = y + static_cast<std::size_t>(r) * hidden;
        double sum = 0;
        for (int i = 0; i < hidden; ++i)
            sum += static_cast<double>(xr[i]) * xr[i];
        const double inv = 1.0 / std::sqrt(sum / hidden + kRmsNormEps);
        for (int i = 0; i < hidden; ++i)
            yr[i] = static_cast<float>(xr[i] * inv * weight[i]);
    }
}

namespace {

// One row with W floats per step. The inner `j` loops are unrolled completely, so for W > 1 the
// W partial sums and products are straight-line code that GCC packs into vector registers; the
// tail (hidden not a multiple of W) runs one float at a time.
template<int W>
void rmsnorm_row(int hidden, const float* __restrict x, const float* __restrict weight, float* __restrict y)
{
    const auto n = static_cast<std::size_t>(hidden);
    // Reading x through both restrict pointers is fine: neither is written.
    const float sum = vec::dot<W>(x, x, n);

    const float inv = 1.0f / std::sqrt(sum / static_cast<float>(hidden) + kRmsNormEps);
    std::size_t i = 0;
    for (; i + W <= n; i += W) {
#pragma GCC unroll 16
        for (int j = 0; j < W; ++j)
            y[i + j] = x[i + j] * inv * weight[i + j];
    }
    for (; i < n; ++i)
        y[i] = x[i] * inv * weight[i];
}

using RowFn = void (*)(int, const float*, const float*, float*);

RowFn row_function(int vector_width)
{
    switch (vector_width) {
    case 1:
        return rmsnorm_row<1>;
    case 4:
        return rmsnorm_row<4>;
    case 8:
        return rmsnorm_row<8>;
    case 16:
        return rmsnorm_row<16>;
    default:
        return nullptr;
    }
}

} // namespace

bool rmsnorm_supports_width(int vector_width)
{
    return row_function(vector_width) != nullptr;
}

void rmsnorm(int rows, int hidden, int vector_width, const float* x, const float* weight, float* y, ThreadPool& pool)
{
    const RowFn row = row_function(vector_width);
    // Chunks of rows, a few per thread, so a slow core does not hold the others up.
    const int chunks = std::min(rows, pool.size() * 4);
    if (row == nullptr || chunks <= 0)
        return;
    pool.for_each(static_cast<std::size_t>(chunks), [&](std::size_t chunk, int) {
        const auto c = static_cast<long long>(chunk);
        const int begin = static_cast<int>(c * rows / chunks);
        const int end = static_cast<int>((c + 1) * rows / chunks);
        for (int r = begin; r < end; ++r) {
            const auto offset = static_cast<std::size_t>(r) * hidden;
            row(hidden, x + offset, weight, y + offset);
        }
    });
}

} // namespace kwb::cpu
