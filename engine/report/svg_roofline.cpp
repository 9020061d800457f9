// SPDX-License-Identifier: GPL-3.0-or-later
// The report's roofline chart: the window's plot (widgets/plots/roofline_plot.cpp) drawn as SVG
// from the same geometry (verdict/roofline_chart.h): log-log axes, the roofs with their labels
// along them, the ridge, each arm's point with its IQR, the arrow from baseline to treatment.
#include "report/roofline_report.h"
#include "report/svg_charts.h"
#include "report/svg_writer.h"
#include "verdict/roofline_chart.h"
#include "verdict/wording.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb::report {
namespace {

// A log10 axis: data in the scale's domain are log10 values.
struct LogScale {
    Scale linear;
    double operator()(double v) const { return linear(std::log10(v)); }
    // One tick per decade inside the range.
    std::vector<double> decades() const
    {
        std::vector<double> out;
        for (double k = std::ceil(linear.d0 - 1e-9); k <= linear.d1 + 1e-9; ++k)
            out.push_back(std::pow(10.0, k));
        return out;
    }
};

LogScale log_scale(double lo, double hi, double p0, double p1)
{
    return {Scale {std::log10(lo), std::log10(hi), p0, p1}};
}

const char* roof_colour(RoofKind kind)
{
    return kind == RoofKind::L2 ? "#546e7a" : "#263238";
}

void arrow(SvgWriter& w, double x0, double y0, double x1, double y1)
{
    const double len = std::hypot(x1 - x0, y1 - y0);
    if (len < 1)
        return;
    const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
    const double head = std::min(10.0, len * 0.6);
    w.line(x0, y0, x1 - ux * head * 0.8, y1 - uy * head * 0.8, "#212121", 1.6);
    w.polygon({{x1, y1}, {x1 - ux * head - uy * head * 0.45, y1 - uy * head + ux * head * 0.45},
                  {x1 - ux * head + uy * head * 0.45, y1 - uy * head - ux * head * 0.45}},
        "#212121", 1.0, "");
}

} // namespace

std::string roofline_svg(const ExperimentReport& e)
{
    if (!e.roofline)
        return {};
    const Roofline& r = *e.roofline;
    bool any = false;
    for (const auto& a : r.arms)
        any = any || a.point.has_value();
    if (!any)
        return {};
    const double W = 640, H = 400;
    const Frame f {70, 24, W - 20, H - 50};
    const RooflineFrame rf = roofline_frame(r);
    const LogScale xs = log_scale(rf.intensity_lo, rf.intensity_hi, f.left, f.right);
    const LogScale ys = log_scale(rf.tflops_lo, rf.tflops_hi, f.bottom, f.top);
    SvgWriter w(W, H);
    for (double t : xs.decades()) {
        w.dashed_line(xs(t), f.top, xs(t), f.bottom, "#d0d0d0");
        w.text(xs(t), f.bottom + 16, wording::num(t), 11, "middle");
    }
    for (double t : ys.decades()) {
        w.dashed_line(f.left, ys(t), f.right, ys(t), "#d0d0d0");
        w.text(f.left - 7, ys(t) + 4, wording::num(t), 11, "end");
    }
    w.axes(f);
    w.text((f.left + f.right) / 2, H - 14, "arithmetic intensity (FLOP/byte)", 12, "middle");
    w.text_rotated(18, (f.top + f.bottom) / 2, "achieved TFLOP/s (median, IQR)", 12);
    w.text(f.left, 16, fmt::format("Roofline: {}", r.device.empty() ? std::string("this device") : r.device), 12);

    for (const RoofSegment& s : roofline_segments(r, rf)) {
        const auto [ax, ay] = s.points.front();
        const auto [bx, by] = s.points.back();
        const double x0 = xs(ax), y0 = ys(ay), x1 = xs(bx), y1 = ys(by);
        if (s.kind == RoofKind::L2)
            w.dashed_line(x0, y0, x1, y1, roof_colour(s.kind));
        else
            w.line(x0, y0, x1, y1, roof_colour(s.kind), 2.2);
        if (s.kind == RoofKind::Compute) { // under the flat roof, at its right end
            w.text(x1 - 4, y1 + 13, s.label, 10, "end", roof_colour(s.kind));
            continue;
        }
        // Along a sloped roof, a third of the way, as the window places it: L2's above its line,
        // DRAM's below its own (the two run close together). (-sin, cos) points below the line.
        const double angle = std::atan2(y1 - y0, x1 - x0);
        const double offset = s.kind == RoofKind::L2 ? -4 : 12;
        w.text_at_angle(x0 + (x1 - x0) * 0.35 - std::sin(angle) * offset,
            y0 + (y1 - y0) * 0.35 + std::cos(angle) * offset, s.label, 10, angle * 180 / M_PI, roof_colour(s.kind));
    }
    if (r.ridge_intensity && r.compute_tflops) {
        const double x = xs(*r.ridge_intensity);
        w.dashed_line(x, ys(r.compute_tflops->value), x, f.bottom, "#787878");
        w.text(x - 4, f.bottom - 5, roofline_ridge_label(r), 10, "end", "#5a5a5a");
    }
    std::vector<std::pair<double, double>> placed;
    double legend_y = f.top + 16; // top left: above the bandwidth roofs no arm can stand
    for (std::size_t i = 0; i < r.arms.size(); ++i) {
        const auto& a = r.arms[i];
        if (!a.point)
            continue;
        const auto& p = *a.point;
        const std::string c = arm_colour(i);
        const double x = xs(p.intensity), y = ys(p.tflops);
        w.line(xs(p.intensity_iqr.lo), y, xs(p.intensity_iqr.hi), y, c, 1.4);
        w.line(x, ys(p.tflops_iqr.lo), x, ys(p.tflops_iqr.hi), c, 1.4);
        if (a.measured_dram_intensity) { // the point on the measured DRAM traffic: pale, joined to it
            const double mx = xs(*a.measured_dram_intensity);
            w.dashed_line(x, y, mx, y, c);
            w.circle(mx, y, 4.5, c, 0.3);
        }
        w.circle(x, y, 5.5, c, 1.0);
        placed.emplace_back(x, y);
        const std::string entry = a.fraction_of_roof ? fmt::format("{}: {} % of the {} roof", a.name,
                                      wording::num(*a.fraction_of_roof * 100), roofline_bound_name(a.bound))
                                                     : a.name;
        w.circle(f.left + 14, legend_y - 4, 4.5, c, 1.0);
        w.label_box(f.left + 24, legend_y, entry, 11, "start", "#000000", false);
        legend_y += 16;
    }
    if (r.has_arrow() && placed.size() == 2)
        arrow(w, placed[0].first, placed[0].second, placed[1].first, placed[1].second);
    return w.finish();
}

} // namespace kwb::report
