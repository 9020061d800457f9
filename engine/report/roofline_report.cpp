// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/roofline_report.h"

#include "verdict/roofline_chart.h"
#include "verdict/wording.h"

#include <fmt/format.h>

namespace kwb::report {
namespace {

using nlohmann::json;
using wording::num;

json roof_json(const std::optional<Roof>& roof)
{
    return roof ? json {{"value", roof->value}, {"what", roof->what}} : json(nullptr);
}

json or_null(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

json text_or_null(const std::string& s)
{
    return s.empty() ? json(nullptr) : json(s);
}

std::string roof_value(const Roof& roof, bool bandwidth)
{
    return bandwidth ? fmt::format("{} GB/s", num(roof.value)) : fmt::format("{} TFLOP/s", num(roof.value));
}

} // namespace

json roofline_json(const Roofline& r)
{
    json arms = json::array();
    for (const auto& a : r.arms) {
        json point = nullptr;
        if (a.point) {
            const auto& p = *a.point;
            point = {{"intensity", p.intensity}, {"tflops", p.tflops},
                {"intensity_iqr", {p.intensity_iqr.lo, p.intensity_iqr.hi}},
                {"tflops_iqr", {p.tflops_iqr.lo, p.tflops_iqr.hi}}, {"n", p.n}};
        }
        arms.push_back({{"name", a.name}, {"point", point}, {"reason", text_or_null(a.reason)},
            {"bound", roofline_bound_name(a.bound)}, {"attainable_tflops", or_null(a.attainable_tflops)},
            {"fraction_of_roof", or_null(a.fraction_of_roof)}, {"derived", text_or_null(a.derived)},
            {"measured_dram",
                a.measured_dram_intensity
                    ? json {{"gbs", *a.measured_dram_gbs}, {"intensity", *a.measured_dram_intensity}}
                    : json(nullptr)},
            {"summary", roofline_arm_line(a)}});
    }
    return {{"device", r.device},
        {"roofs",
            {{"dram_gbs", roof_json(r.bandwidth_gbs)}, {"l2_gbs", roof_json(r.l2_gbs)},
                {"compute_tflops", roof_json(r.compute_tflops)}}},
        {"ridge_intensity", or_null(r.ridge_intensity)}, {"arms", arms}, {"arrow", r.has_arrow()},
        {"summary", roofline_roofs_line(r)}, {"notes", r.notes}};
}

std::vector<std::string> roofline_table_header()
{
    return {"roof or arm", "value", "intensity (FLOP/B)", "TFLOP/s (IQR, n)", "bound", "fraction of roof"};
}

std::vector<std::vector<std::string>> roofline_table_rows(const Roofline& r)
{
    std::vector<std::vector<std::string>> rows;
    const auto roof = [&](const char* name, const std::optional<Roof>& x, bool bandwidth) {
        rows.push_back({name, x ? fmt::format("{} ({})", roof_value(*x, bandwidth), x->what) : std::string("none"), "-",
            "-", "-", "-"});
    };
    roof("DRAM roof", r.bandwidth_gbs, true);
    if (r.l2_gbs) // drawn where measured; bounds nothing
        roof("L2 roof (drawn, bounds nothing)", r.l2_gbs, true);
    roof("compute roof", r.compute_tflops, false);
    rows.push_back(
        {"ridge", r.ridge_intensity ? fmt::format("{} FLOP/B", num(*r.ridge_intensity)) : "-", "-", "-", "-", "-"});
    for (const auto& a : r.arms) {
        if (!a.point) {
            rows.push_back({a.name, "no point: " + a.reason, "-", "-", "-", "-"});
            continue;
        }
        const auto& p = *a.point;
        rows.push_back({a.name, a.derived.empty() ? "measured" : "FLOPs derived from its parameters",
            fmt::format("{} ({}-{}){}", num(p.intensity), num(p.intensity_iqr.lo), num(p.intensity_iqr.hi),
                a.measured_dram_intensity ? fmt::format("; {} on the measured DRAM traffic ({} GB/s)",
                    num(*a.measured_dram_intensity), num(*a.measured_dram_gbs))
                                          : std::string()),
            fmt::format("{} ({}-{}, n = {})", num(p.tflops), num(p.tflops_iqr.lo), num(p.tflops_iqr.hi), p.n),
            roofline_bound_name(a.bound),
            a.fraction_of_roof ? fmt::format("{} %", num(*a.fraction_of_roof * 100)) : std::string("-")});
    }
    return rows;
}

} // namespace kwb::report
