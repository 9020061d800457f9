// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/svg_charts.h"

#include "report/roofline_report.h"
#include "report/svg_writer.h"
#include "stats/descriptive.h"
#include "study/lane_range.h"
#include "util/chart_labels.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace kwb::report {
namespace {

using wording::num;

std::string axis_label(const ExperimentReport& e)
{
    return e.unit.empty() ? e.metric : fmt::format("{} ({})", e.metric, e.unit);
}

// Gaussian kernel density of the values at `y` with Silverman's bandwidth: only the violin's shape.
double density(const std::vector<double>& v, double y, double bw)
{
    double s = 0;
    for (double x : v)
        s += std::exp(-0.5 * ((y - x) / bw) * ((y - x) / bw));
    return s / (static_cast<double>(v.size()) * bw * std::sqrt(2 * M_PI));
}

} // namespace

std::string arm_colour(std::size_t index)
{
    static const char* colours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#56b4e9", "#e69f00"};
    return colours[index % std::size(colours)];
}

std::string verdict_colour(const std::string& word)
{
    if (word == "LICENSE")
        return "#2e7d32";
    if (word == "KILL")
        return "#c62828";
    if (word == "NOISE")
        return "#757575";
    if (word == "INCONCLUSIVE")
        return "#e69100";
    return "#546e7a";
}

std::string distribution_svg(const ExperimentReport& e)
{
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& a : e.arms)
        for (double v : a.values) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (!std::isfinite(lo))
        return {};
    // The right margin holds the last arm's "mean X ms / ± sd" label.
    const double W = 640, H = 420;
    const Frame f {70, 20, W - 100, H - 60};
    const double pad = hi > lo ? 0.08 * (hi - lo) : std::max(1e-9, 0.05 * std::fabs(hi));
    const Scale ys = Scale::nice(lo - pad, hi + pad, f.bottom, f.top);
    const double slot = (f.right - f.left) / static_cast<double>(e.arms.size());
    const Scale xs {0, 1, f.left, f.right};
    SvgWriter w(W, H);
    w.grid_y(f, ys);
    w.axes(f);
    w.ticks_y(f, ys);
    w.text_rotated(18, (f.top + f.bottom) / 2, axis_label(e), 12);
    struct MeanLabel {
        double x, y;
        std::string mean, spread;
    };
    std::vector<MeanLabel> labels; // drawn last, over every violin
    for (std::size_t i = 0; i < e.arms.size(); ++i) {
        const auto& a = e.arms[i];
        const double cx = f.left + slot * (static_cast<double>(i) + 0.4);
        const std::string c = arm_colour(i);
        w.text(cx, f.bottom + 18, a.name, 12, "middle");
        w.text(cx, f.bottom + 34, fmt::format("n = {}", a.values.size()), 12, "middle");
        if (!a.summary)
            continue;
        const auto& s = *a.summary;
        const double sd = s.stddev.value_or(0);
        // Violin: the density mirrored around the arm's centre line, the widest point slot/3 wide.
        if (a.values.size() >= 2 && sd > 0) {
            const double bw = 1.06 * sd * std::pow(static_cast<double>(a.values.size()), -0.2);
            std::vector<std::pair<double, double>> pts;
            double peak = 0;
            const double y0 = s.min - 3 * bw, y1 = s.max + 3 * bw;
            for (int k = 0; k <= 60; ++k) {
                const double y = y0 + (y1 - y0) * k / 60.0;
                const double d = density(a.values, y, bw);
                peak = std::max(peak, d);
                pts.emplace_back(y, d);
            }
            std::vector<std::pair<double, double>> outline;
            // The density's tails are cut at the frame, as the window's axis range cuts them.
            auto clamp_y = [&](double y) { return std::clamp(ys(y), f.top, f.bottom); };
            for (const auto& [y, d] : pts)
                outline.emplace_back(cx + d / peak * slot / 3, clamp_y(y));
            for (auto it = pts.rbegin(); it != pts.rend(); ++it)
                outline.emplace_back(cx - it->second / peak * slot / 3, clamp_y(it->first));
            w.polygon(outline, c, 0.2, c);
        }
        // Box: quartiles and median, whiskers to min and max.
        const double q1 = stats::percentile(a.values, 25), q3 = stats::percentile(a.values, 75);
        w.line(cx, ys(s.min), cx, ys(s.max), "#000000", 1);
        w.line(cx - 8, ys(s.min), cx + 8, ys(s.min), "#000000", 1);
        w.line(cx - 8, ys(s.max), cx + 8, ys(s.max), "#000000", 1);
        w.rect(cx - 12, ys(q3), 24, std::max(1.0, ys(q1) - ys(q3)), "#ffffff", 0.8, "#000000");
        w.line(cx - 12, ys(s.median), cx + 12, ys(s.median), "#000000", 2);
        // Every repetition, deterministically spread sideways so ties stay visible.
        for (std::size_t k = 0; k < a.values.size(); ++k) {
            const double jitter = (static_cast<double>((k * 7919) % 17) / 16.0 - 0.5) * slot / 5;
            w.circle(cx + jitter, ys(a.values[k]), 3.2, c, 0.85);
        }
        const double mx = cx + slot / 3 + 8;
        w.diamond(mx, ys(s.mean), 5, c);
        // On white boxes: with three arms (an A/A arm) the label reaches the next arm's violin; kept
        // inside the chart's right edge.
        const std::string mean = fmt::format("mean {} {}", num(s.mean), e.unit);
        const std::string spread = s.stddev ? fmt::format("± {} sd", num(*s.stddev)) : "n = 1";
        const double lx = std::min(mx + 9, W - 6 - std::max(text_width(mean, 11), text_width(spread, 11)));
        labels.push_back({lx, ys(s.mean), mean, spread});
        // Under the arm's name and n, where no violin reaches.
        if (a.bimodality.bimodal.value_or(false))
            w.text(cx, f.bottom + 50, "bimodal", 11, "middle", "#e69100");
    }
    for (const auto& l : labels) {
        w.label_box(l.x, l.y - 2, l.mean, 11, "start", "#000000", false);
        w.label_box(l.x, l.y + 11, l.spread, 11, "start", "#000000", false);
    }
    (void)xs;
    return w.finish();
}

std::string delta_svg(const ExperimentReport& e)
{
    if (!e.evidence)
        return {};
    const auto& ev = *e.evidence;
    // The right margin holds "paired" beside the paired CI; the threshold labels stay inside the
    // frame (the range is widened for them, util/chart_labels.h).
    const double W = 640, H = 230;
    const Frame f {30, 24, W - 40, H - 50};
    const double sigma = ev.sigma_pct.value_or(0);
    const double band = e.noise_k * sigma;
    double lo = std::min({0.0, ev.delta_pct, -band}), hi = std::max({0.0, ev.delta_pct, band});
    for (const auto& line : e.delta_lines) {
        lo = std::min(lo, line.delta_pct);
        hi = std::max(hi, line.delta_pct);
    }
    if (ev.ci95_delta_pct) {
        lo = std::min(lo, (*ev.ci95_delta_pct)[0]);
        hi = std::max(hi, (*ev.ci95_delta_pct)[1]);
    }
    const double pad = 0.08 * (hi - lo) + 0.5;
    std::vector<LineLabel> line_labels;
    for (const auto& line : e.delta_lines)
        line_labels.push_back({line.delta_pct, text_width(line.label, 11), line.word == VerdictWord::Kill});
    const auto [x_lo, x_hi] = widen_for_line_labels(lo - pad, hi + pad, f.right - f.left, line_labels);
    const Scale xs = Scale::nice(x_lo, x_hi, f.left, f.right);
    SvgWriter w(W, H);
    w.grid_x(f, xs);
    w.rect(xs(-band), f.top, std::max(0.5, xs(band) - xs(-band)), f.bottom - f.top, "#787878", 0.22, "");
    // Where a label may go (util/chart_labels.h, the window's rule too): inside the chart, and
    // clear of the kill and license lines (their labels sit at the top; the delta's label in the
    // middle; the noise band's at the foot).
    LabelRoom room {f.left, f.right, {}};
    for (const auto& line : e.delta_lines)
        room.lines.push_back(xs(line.delta_pct));
    // The noise label, on a white box so it stays readable over the band and the grid.
    const std::string noise = fmt::format("noise ±{} σ = ±{} %", num(e.noise_k), num(band));
    const double nw = text_width(noise, 11) + 8;
    const double noise_left = place_centred_label(room, xs(0), nw);
    w.line(xs(0), f.top, xs(0), f.bottom, "#9e9e9e", 1);
    for (const auto& line : e.delta_lines) {
        const bool kill = line.word == VerdictWord::Kill;
        const char* colour = kill ? "#c62828" : "#2e7d32";
        w.dashed_line(xs(line.delta_pct), f.top, xs(line.delta_pct), f.bottom, colour);
        w.text(xs(line.delta_pct) + (kill ? -4 : 4), f.top + 12, line.label, 11, kill ? "end" : "start", colour);
    }
    w.label_box(noise_left + nw / 2, f.bottom - 6, noise, 11, "middle", "#505050", false);
    w.axes_x(f);
    w.ticks_x(f, xs);
    w.text((f.left + f.right) / 2, H - 8, "delta % of the target metric (positive = better), 95% CI", 12, "middle");
    const std::string word = e.sample.present ? e.sample.word : "";
    const std::string c = verdict_colour(word);
    const double y = (f.top + f.bottom) / 2;
    if (ev.ci95_delta_pct) {
        const double a = xs((*ev.ci95_delta_pct)[0]), b = xs((*ev.ci95_delta_pct)[1]);
        w.line(a, y, b, y, c, 2.5);
        w.line(a, y - 7, a, y + 7, c, 2.5);
        w.line(b, y - 7, b, y + 7, c, 2.5);
    }
    if (ev.paired && ev.paired->ci95_delta_pct) {
        const double a = xs((*ev.paired->ci95_delta_pct)[0]), b = xs((*ev.paired->ci95_delta_pct)[1]);
        w.line(a, y + 16, b, y + 16, c, 1.2);
        w.text(b + 4, y + 20, "paired", 10, "start", "#505050");
    }
    w.circle(xs(ev.delta_pct), y, 6, c, 1.0);
    // The delta's label above the point, by the rule the window's chart follows too: inside the
    // chart, crossing no threshold line.
    const std::string head = fmt::format("Δ {} %", num(ev.delta_pct));
    std::string tail = ev.ci95_delta_pct
        ? fmt::format("95% CI [{}, {}]", num((*ev.ci95_delta_pct)[0]), num((*ev.ci95_delta_pct)[1]))
        : std::string();
    if (ev.sigma_pct)
        tail += (tail.empty() ? "" : "  ") + fmt::format("σ {} %", num(sigma));
    const std::vector<std::string> one {tail.empty() ? head : head + "  " + tail};
    const std::vector<std::string> two = tail.empty() ? one : std::vector<std::string> {head, tail};
    const auto width_of = [](const std::vector<std::string>& ls) {
        double wmax = 0;
        for (const auto& l : ls)
            wmax = std::max(wmax, text_width(l, 12, true) + 8);
        return wmax;
    };
    const DeltaLabelPlace place = place_delta_label(room, xs(ev.delta_pct), width_of(one), width_of(two));
    const auto& ls = place.two_lines ? two : one;
    const double left = place.left;
    const double lw = width_of(ls);
    for (std::size_t i = 0; i < ls.size(); ++i)
        w.label_box(left + lw / 2, y - 14 - 18 * static_cast<double>(ls.size() - 1 - i), ls[i], 12, "middle");
    return w.finish();
}

std::string lanes_svg(const ExperimentReport& e)
{
    std::vector<const SamplerLane*> lanes;
    for (const auto& l : e.lanes)
        if (l.values.size() >= 2 && l.values.size() == l.t_s.size()) // a line needs two readings
            lanes.push_back(&l);
    if (lanes.empty())
        return {};
    const double W = 560, panel = 120;
    const double H = panel * static_cast<double>(lanes.size()) + 40;
    SvgWriter w(W, H);
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        const auto& l = *lanes[i];
        const double top = 10 + panel * static_cast<double>(i);
        const Frame f {70, top + 18, W - 20, top + panel - 16};
        const auto [vlo, vhi] = std::minmax_element(l.values.begin(), l.values.end());
        const double pad = *vhi > *vlo ? 0.1 * (*vhi - *vlo) : std::max(1.0, 0.1 * std::fabs(*vhi));
        // A percentage reads on its whole scale; the range rule keeps its readings inside it.
        const Scale ys = is_percentage_unit(l.unit) ? Scale::nice(0, kPercentMax, f.bottom, f.top)
                                                    : Scale::nice(*vlo - pad, *vhi + pad, f.bottom, f.top);
        const Scale xs {l.t_s.front(), std::max(l.t_s.back(), l.t_s.front() + 1e-9), f.left, f.right};
        w.grid_y(f, ys);
        w.axes(f);
        w.ticks_y(f, ys);
        // A study recorded before the range rule may hold readings it would have dropped: they are
        // not drawn either, and counted with the lane's own.
        std::vector<std::pair<double, double>> pts;
        for (std::size_t k = 0; k < l.values.size(); ++k)
            if (const auto r = check_lane_reading(l.unit, l.values[k]); r.keep)
                pts.emplace_back(xs(l.t_s[k]), ys(r.value));
        const unsigned long long dropped = lane_dropped_readings(l);
        std::string title = l.unit.empty() ? l.name : fmt::format("{} ({})", l.name, l.unit);
        if (dropped > 0)
            title += fmt::format(" - {} reading{} out of range dropped", dropped, dropped == 1 ? "" : "s");
        w.text(f.left, top + 12, title, 12, "start");
        w.polyline(pts, arm_colour(2 + i), 1.5);
        if (i + 1 == lanes.size()) {
            w.text(f.left, f.bottom + 14, fmt::format("{} s", num(l.t_s.front())), 11, "start");
            w.text(f.right, f.bottom + 14, fmt::format("{} s", num(l.t_s.back())), 11, "end");
            w.text((f.left + f.right) / 2, f.bottom + 28, "seconds since the experiment started", 12, "middle");
        }
    }
    return w.finish();
}

std::vector<Chart> charts_of(const ExperimentReport& e)
{
    std::vector<Chart> out;
    auto add = [&](const char* stem, const char* title, std::string svg) {
        if (svg.empty())
            return;
        Chart c {fmt::format("{}-{}", e.id, stem), title, std::move(svg)};
        std::tie(c.width, c.height) = svg_size(c.svg);
        out.push_back(std::move(c));
    };
    add("distributions", "A/B distributions", distribution_svg(e));
    add("delta", "Delta with its 95% CI against the thresholds and the noise band", delta_svg(e));
    add("lanes", "Metric lanes recorded during the run", lanes_svg(e));
    add("roofline", "Roofline: each arm against the device's roofs, baseline -> treatment", roofline_svg(e));
    return out;
}

} // namespace kwb::report
