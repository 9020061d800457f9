// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's fp8 KV cache, the one rule every backend stores it by (header-only: the GPU plugin
// includes it too): the element, e4m3 (1 sign, 4 exponent bits of bias 7, 3 mantissa bits; no
// infinities; 0x7F and 0xFF are NaN; largest 448, smallest subnormal 2^-9), and the static scale
// of a (layer, K or V, KV head) from the largest |value| a calibration pass saw.
//
// Rounding is that of the CUDA path's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3): to the
// nearest e4m3 value, ties to the even code, every finite or infinite value beyond 448 saturating to
// +-448 (sign kept), NaN to NaN, magnitudes up to 2^-10 to a zero of x's sign. Integer arithmetic on
// the float's bits, so the result depends on no rounding mode. C++17: the CUDA sources include it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace kwb::llm {

inline constexpr float kE4m3Max = 448.0f;
// A KV scale leaves this headroom over the calibration pass's largest |K| or |V| of a head, so
// later tokens' larger values still fit 448 (relative precision is the same anywhere in e4m3's
// normal range, so the headroom costs nothing above 2^-6 x scale).
inline constexpr float kKvFp8Headroom = 4.0f;

inline std::uint8_t e4m3_from_float(float x)
{
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) // NaN
        return static_cast<std::uint8_t>(sign | 0x7fu);
    constexpr std::uint32_t kMaxBits = 0x43e00000u; // 448.0f
    if (magnitude >= kMaxBits) // saturate (464, the midpoint above 448, ties down to 448 as well)
        return static_cast<std::uint8_t>(sign | 0x7eu);
    const int exponent = static_cast<int>(magnitude >> 23) - 127; // of a normal float; float subnormals round to 0
    if (exponent < -11) // below 2^-11, or a float subnormal: zero (up to 2^-10 the rounding below gives it too)
        return sign;
    const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u; // 1.m x 2^23
    // Bits of the significand below the kept ones: 20 for a normal e4m3 (3 mantissa bits kept);
    // more for a subnormal, whose unit is 2^-9.
    const int dropped = exponent >= -6 ? 20 : 20 + (-6 - exponent);
    const std::uint32_t kept = significand >> dropped;
    const std::uint32_t rest = significand & ((1u << dropped) - 1u), half = 1u << (dropped - 1);
    // Normal: exponent field, then the mantissa (the implicit bit adds 8, which the field absorbs);
    // subnormal: the code is the count of 2^-9 units. A carry out of the mantissa moves up a
    // binade, and the subnormal count 8 is the smallest normal's code: both come out right.
    std::uint32_t code = exponent >= -6 ? (static_cast<std::uint32_t>(exponent + 6) << 3) + kept : kept;
    if (rest > half || (rest == half && (code & 1u)))
        ++code;
    return static_cast<std::uint8_t>(sign | std::min<std::uint32_t>(code, 0x7eu));
}

inline float e4m3_to_float(std::uint8_t code)
{
    const int exponent = (code >> 3) & 0xf, mantissa = code & 7;
    float v;
    if (exponent == 0xf && mantissa == 7)
        v = NAN;
    else if (exponent == 0)
        v = std::ldexp(static_cast<float>(mantissa), -9);
    else
        v = std::ldexp(static_cast<float>(8 + mantissa), exponent - 10);
    return code & 0x80 ? -v : v;
}

// Every code's value (decoding a cache row is a table lookup).
inline const std::array<float, 256>& e4m3_values()
{
    static const std::array<float, 256> table = [] {
        std::array<float, 256> t {};
        for (int c = 0; c < 256; ++c)
            t[static_cast<std::size_t>(c)] = e4m3_to_float(static_cast<std::uint8_t>(c));
        return t;
    }();
    return table;
}

// The scale of one (layer, K or V, KV head): its largest |value| in the calibration pass, times the
// headroom, maps to 448; a head that saw nothing finite keeps 1. The cache holds
// e4m3_from_float(value / scale) and is read as e4m3 value x scale.
inline float kv_fp8_scale(float amax)
{
    return amax > 0 && std::isfinite(amax) ? amax * kKvFp8Headroom / kE4m3Max : 1.0f;
}

} // namespace kwb::llm
