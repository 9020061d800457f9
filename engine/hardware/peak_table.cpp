// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/peak_table.h"

namespace kwb {
namespace {

std::optional<double> positive(const nlohmann::json& o, const char* key)
{
    if (!o.is_object())
        return std::nullopt;
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number() || it->get<double>() <= 0)
        return std::nullopt;
    return it->get<double>();
}

std::optional<MeasuredCeiling> ceiling(const nlohmann::json& measured, const char* key, const char* shape)
{
    if (!measured.is_object() || !measured.contains(key) || !measured[key].is_object())
        return std::nullopt;
    const auto& m = measured[key];
    const auto median = positive(m, "median");
    if (!median)
        return std::nullopt;
    MeasuredCeiling c;
    c.median = *median;
    c.n = m.value("n", 0);
    c.min = m.value("min", 0.0);
    c.max = m.value("max", 0.0);
    c.cv_pct = m.value("cv_pct", 0.0);
    if (const auto shapes = measured.find("shapes"); shapes != measured.end() && shapes->is_object())
        c.how = shapes->value(shape, "");
    return c;
}

} // namespace

std::vector<PeakRow> peak_rows(const nlohmann::json& catalogue, const nlohmann::json& measured)
{
    struct Spec {
        const char* quantity;
        const char* unit;
        const char* datasheet_key;
        const char* measured_key; // null: nothing measures it
        const char* shape;
        bool only_measured = false; // a second view of a datasheet figure: shown once measured
    };
    static const Spec specs[] = {
        {"BF16 tensor (dense)", "TFLOP/s", "peak_bf16_tflops", "bf16_gemm_tflops", "bf16_gemm"},
        {"FP8 tensor (dense)", "TFLOP/s", "peak_fp8_tflops", nullptr, nullptr},
        {"FP32 (non-tensor)", "TFLOP/s", "peak_fp32_tflops", nullptr, nullptr},
        {"Memory bandwidth", "GB/s", "peak_hbm_gbs", "copy_gbs", "copy"},
        {"Memory bandwidth, read only", "GB/s", "peak_hbm_gbs", "read_gbs", "read", true},
        {"L2 bandwidth, read", "GB/s", nullptr, "l2_read_gbs", "l2_read", true},
    };
    std::vector<PeakRow> rows;
    for (const Spec& s : specs) {
        PeakRow r {s.quantity, s.unit, s.datasheet_key ? positive(catalogue, s.datasheet_key) : std::nullopt,
            s.measured_key ? ceiling(measured, s.measured_key, s.shape) : std::nullopt, std::nullopt};
        if ((!r.datasheet && !r.measured) || (s.only_measured && !r.measured))
            continue;
        if (r.datasheet && r.measured)
            r.pct_of_datasheet = 100.0 * r.measured->median / *r.datasheet;
        rows.push_back(std::move(r));
    }
    return rows;
}

} // namespace kwb
