// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/measured_ceilings.h"

#include <cmath>

namespace kwb {
namespace {

std::optional<double> median_of(const nlohmann::json& entry, const char* key)
{
    const auto it = entry.find(key);
    if (it == entry.end() || !it->is_object())
        return std::nullopt;
    const auto m = it->find("median");
    if (m == it->end() || !m->is_number())
        return std::nullopt;
    const double v = m->get<double>();
    return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
}

std::string string_of(const nlohmann::json& entry, const char* key)
{
    const auto it = entry.find(key);
    return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

MeasuredCeilings measured_ceilings(const nlohmann::json& entry)
{
    MeasuredCeilings c;
    if (!entry.is_object())
        return c;
    c.copy_gbs = median_of(entry, "copy_gbs");
    c.read_gbs = median_of(entry, "read_gbs");
    c.l2_read_gbs = median_of(entry, "l2_read_gbs");
    c.bf16_gemm_tflops = median_of(entry, "bf16_gemm_tflops");
    c.model = string_of(entry, "model");
    c.measured_at = string_of(entry, "measured_at");
    return c;
}

} // namespace kwb
