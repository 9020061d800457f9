// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cpu/thread_pool.h"

namespace kwb::cpu {

// RMSNorm over the rows of a rows x hidden matrix, fp32:
//   y[r][i] = x[r][i] / sqrt(mean_i(x[r][i]^2) + eps) * weight[i]
inline constexpr float kRmsNormEps = 1e-6f;

// The correctness oracle: one row at a time, the sum of squares in double.
void rmsnorm_reference(int rows, int hidden, const float* x, const float* weight, float* y);

// The CPU backend's RMSNorm. `vector_width` (1, 4, 8 or 16) is how many floats each step of the
// inner loops handles, with that many independent partial sums in the reduction: 1 is the scalar
// loop, whose sum is one serial chain of adds the compiler must not reorder; 4 and 8 become one
// and two SSE registers per step. Rows are split over the pool's threads.
void rmsnorm(int rows, int hidden, int vector_width, const float* x, const float* weight, float* y, ThreadPool& pool);

// The vector widths rmsnorm() implements.
bool rmsnorm_supports_width(int vector_width);

} // namespace kwb::cpu
