// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cpu/thread_pool.h"

#include <cstddef>

namespace kwb::cpu {

// The STREAM triad a[i] = b[i] + s * c[i], fp32: two streams in, one out, almost no arithmetic,
// so its time is the memory bandwidth the threads can draw.

// The correctness oracle: the scalar loop.
void triad_reference(std::size_t n, float s, const float* b, const float* c, float* a);

// A copy a[i] = b[i], one contiguous slice per thread: the other bandwidth operation.
void stream_copy(std::size_t n, const float* b, float* a, ThreadPool& pool);

// The CPU backend's triad: one contiguous slice per thread (cache-line aligned) and an unrolled
// inner loop that GCC vectorises at -O2.
void triad(std::size_t n, float s, const float* b, const float* c, float* a, ThreadPool& pool);

} // namespace kwb::cpu
