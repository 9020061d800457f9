// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's fp8 weights (`weights` fp8, cuda), the one rule the GPU quantiser and its tests
// follow (header-only, C++17: the CUDA sources include it): every output row of a linear layer
// (a row of W [out][in]) is stored as e4m3 codes of w / scale, rounded as the fp8 KV cache rounds
// (kv_fp8.h: nearest, ties to even, saturating at 448), with one fp32 scale per row, its largest
// |w| over 448, so the row's largest weight lands on 448 exactly and the rest keep e4m3's relative
// precision (3 mantissa bits: at most 2^-4 of |w| off, plus 2^-10 x scale in the subnormal range).
// A row of zeros gets the scale 1: its codes are all zero, and no division by zero appears.
#include "kv_fp8.h"

#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define KWB_WEIGHT_FP8_HD __host__ __device__
#else
#define KWB_WEIGHT_FP8_HD
#endif

namespace kwb::llm {

KWB_WEIGHT_FP8_HD inline float weight_fp8_scale(float row_absmax)
{
    return row_absmax > 0.0f ? row_absmax / 448.0f : 1.0f;
}

// The largest error dequantisation (code value x scale) may leave on a weight w of a row with
// that scale: half an e4m3 step, 2^-4 of |w| in the normal range, 2^-10 x scale below it.
inline double weight_fp8_error_bound(float w, float scale)
{
    return std::fmax(std::ldexp(std::fabs(static_cast<double>(w)), -4), std::ldexp(static_cast<double>(scale), -10));
}

// One row quantised on the host (the tests' twin of the GPU quantiser): the codes and the scale.
struct Fp8Row {
    std::vector<std::uint8_t> codes;
    float scale = 1.0f;
    float value(std::size_t i) const { return e4m3_to_float(codes[i]) * scale; }
};

inline Fp8Row quantise_weight_row(const float* w, std::size_t n)
{
    float absmax = 0.0f;
    for (std::size_t i = 0; i < n; ++i)
        absmax = std::fmax(absmax, std::fabs(w[i]));
    Fp8Row row;
    row.scale = weight_fp8_scale(absmax);
    row.codes.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        row.codes[i] = e4m3_from_float(w[i] / row.scale);
    return row;
}

} // namespace kwb::llm
