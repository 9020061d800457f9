// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/roofline_chart.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

constexpr double kIntensityPad = 4;
constexpr double kTflopsPad = 2.5;

// Attainable TFLOP/s under a bandwidth roof at intensity x.
double under(double gbs, double x)
{
    return gbs * x / 1000;
}

std::string bandwidth_label(const char* name, const Roof& roof)
{
    return fmt::format("{} {} ({})", name, roofline_rate_text(roof.value), roof.what);
}

} // namespace

RooflineFrame roofline_frame(const Roofline& r)
{
    std::vector<double> xs, ys;
    if (r.ridge_intensity)
        xs.push_back(*r.ridge_intensity);
    for (const auto& a : r.arms) {
        if (!a.point)
            continue;
        const auto& p = *a.point;
        for (double x : {p.intensity, p.intensity_iqr.lo, p.intensity_iqr.hi})
            if (x > 0)
                xs.push_back(x);
        if (a.measured_dram_intensity)
            xs.push_back(*a.measured_dram_intensity);
        for (double y : {p.tflops, p.tflops_iqr.lo, p.tflops_iqr.hi})
            if (y > 0)
                ys.push_back(y);
    }
    RooflineFrame f;
    if (!xs.empty()) {
        f.intensity_lo = *std::min_element(xs.begin(), xs.end()) / kIntensityPad;
        f.intensity_hi = *std::max_element(xs.begin(), xs.end()) * kIntensityPad;
        if (f.intensity_hi / f.intensity_lo < 100) { // at least two decades, centred on the data
            const double mid = std::sqrt(f.intensity_lo * f.intensity_hi);
            f.intensity_lo = mid / 10;
            f.intensity_hi = mid * 10;
        }
    }
    if (r.compute_tflops)
        ys.push_back(r.compute_tflops->value);
    if (r.bandwidth_gbs)
        ys.push_back(under(r.bandwidth_gbs->value, f.intensity_lo));
    if (!ys.empty()) {
        f.tflops_lo = *std::min_element(ys.begin(), ys.end()) / kTflopsPad;
        f.tflops_hi = *std::max_element(ys.begin(), ys.end()) * kTflopsPad;
    }
    return f;
}

std::vector<RoofSegment> roofline_segments(const Roofline& r, const RooflineFrame& f)
{
    std::vector<RoofSegment> out;
    const double compute = r.compute_tflops ? r.compute_tflops->value : INFINITY;
    // A bandwidth roof from the frame's left edge to where it meets the compute roof (or the right edge).
    const auto slope = [&](RoofKind kind, const char* name, const Roof& roof) {
        const double meet = std::min(f.intensity_hi, compute * 1000 / roof.value);
        if (meet <= f.intensity_lo)
            return;
        out.push_back({kind, bandwidth_label(name, roof),
            {{f.intensity_lo, under(roof.value, f.intensity_lo)}, {meet, under(roof.value, meet)}}});
    };
    if (r.bandwidth_gbs)
        slope(RoofKind::Dram, "DRAM", *r.bandwidth_gbs);
    if (r.l2_gbs)
        slope(RoofKind::L2, "L2", *r.l2_gbs);
    if (r.compute_tflops) {
        // Flat from the ridge (the left edge without a DRAM roof) to the right edge.
        const double from = r.ridge_intensity ? std::max(f.intensity_lo, *r.ridge_intensity) : f.intensity_lo;
        out.push_back({RoofKind::Compute,
            fmt::format("compute {:.4g} TFLOP/s ({})", r.compute_tflops->value, r.compute_tflops->what),
            {{from, compute}, {f.intensity_hi, compute}}});
    }
    return out;
}

std::string roofline_ridge_label(const Roofline& r)
{
    return r.ridge_intensity ? fmt::format("ridge {:.3g} FLOP/B", *r.ridge_intensity) : std::string();
}

std::vector<std::string> roofline_caption(const Roofline& r)
{
    std::vector<std::string> lines;
    for (const auto& a : r.arms)
        lines.push_back(roofline_arm_line(a));
    // One line per way of deriving, naming every arm derived that way (both arms, as a rule).
    std::vector<std::pair<std::string, std::string>> derived; // how, the arms
    for (const auto& a : r.arms) {
        if (a.derived.empty())
            continue;
        auto it = std::find_if(derived.begin(), derived.end(), [&](const auto& d) { return d.first == a.derived; });
        if (it == derived.end())
            derived.emplace_back(a.derived, a.name);
        else
            it->second += " and " + a.name;
    }
    for (const auto& [how, arms] : derived)
        lines.push_back(fmt::format("{}: {}", arms, how));
    lines.insert(lines.end(), r.notes.begin(), r.notes.end());
    return lines;
}

} // namespace kwb
