// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/triad.h"

#include <algorithm>
#include <cstring>

namespace kwb::cpu {

void triad_reference(std::size_t n, float s, const float* b, const float* c, float* a)
{
    for (std::size_t i = 0; i < n; ++i)
        a[i] = b[i] + s * c[i];
}

namespace {

void triad_slice(std::size_t n, float s, const float* __restrict b, const float* __restrict c, float* __restrict a)
{
    constexpr std::size_t kStep = 16;
    std::size_t i = 0;
    for (; i + kStep <= n; i += kStep) {
#pragma GCC unroll 16
        for (std::size_t j = 0; j < kStep; ++j)
            a[i + j] = b[i + j] + s * c[i + j];
    }
    for (; i < n; ++i)
        a[i] = b[i] + s * c[i];
}

} // namespace

namespace {

template<typename Slice> void for_each_slice(std::size_t n, ThreadPool& pool, const Slice& slice_fn)
{
    // Slices start on 64-byte boundaries (16 floats) so two threads never share a cache line.
    const auto slices = static_cast<std::size_t>(pool.size());
    const std::size_t per = (n / slices + 15) / 16 * 16;
    pool.for_each(slices, [&](std::size_t slice, int) {
        const std::size_t begin = std::min(n, slice * per);
        const std::size_t end = slice + 1 == slices ? n : std::min(n, begin + per);
        slice_fn(begin, end);
    });
}

} // namespace

void stream_copy(std::size_t n, const float* b, float* a, ThreadPool& pool)
{
    for_each_slice(n, pool,
        [&](std::size_t begin, std::size_t end) { std::memcpy(a + begin, b + begin, (end - begin) * sizeof(float)); });
}

void triad(std::size_t n, float s, const float* b, const float* c, float* a, ThreadPool& pool)
{
    for_each_slice(n, pool,
        [&](std::size_t begin, std::size_t end) { triad_slice(end - begin, s, b + begin, c + begin, a + begin); });
}

} // namespace kwb::cpu
