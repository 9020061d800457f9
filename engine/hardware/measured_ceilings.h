// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

// The figures of one device's entry in ceilings.json (hardware/ceilings.h), read in one place so
// the speed-of-light guard, the roofline and the pages agree on them. Each is the median of what
// `kwb calibrate` measured; a key an older calibration did not write (read_gbs, l2_read_gbs) is
// simply absent. A CPU has no calibration: its entry, when there is one, is written by hand (or
// by a test's fixture) in the same shape.
namespace kwb {

struct MeasuredCeilings {
    std::optional<double> copy_gbs; // DRAM copy a = b, bytes read plus written per second, GB/s
    std::optional<double> read_gbs; // DRAM read-only, GB/s
    std::optional<double> l2_read_gbs; // reads of an L2-resident array, GB/s
    std::optional<double> bf16_gemm_tflops; // cuBLASLt bf16 GEMM, TFLOP/s
    std::string model;
    std::string measured_at;

    bool empty() const { return !copy_gbs && !read_gbs && !l2_read_gbs && !bf16_gemm_tflops; }
};

// From an entry ({"copy_gbs": {"median": ..., "unit": ...}, ...}, or null). A key whose median is
// missing, not a number or not positive is left out rather than trusted.
MeasuredCeilings measured_ceilings(const nlohmann::json& entry);

} // namespace kwb
