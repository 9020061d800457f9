// SPDX-License-Identifier: GPL-3.0-or-later
// The heat map of a grid group (methodology phase 6), drawn like the window's (widgets/plots/
// heat_map.cpp): one tile per cell, the first variable's levels down the side with the baseline
// level at the top, the second's along the foot; the colour runs from the KILL red through white
// (no change) to the LICENSE green, scaled to the largest |delta %| (at least 1 %); each tile says
// delta %, its 95% CI, sigma, n per arm and the cell's verdict, and an unjudged cell says why.
#include "report/svg_charts.h"
#include "report/svg_writer.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb::report {

namespace {

using wording::num;

// White -> `to` by t in [0, 1], as "#rrggbb".
std::string blend(const std::string& to, double t)
{
    const auto channel = [&](int i) {
        const int target = std::stoi(to.substr(1 + 2 * i, 2), nullptr, 16);
        return static_cast<int>(std::lround(250 + (target - 250) * std::clamp(t, 0.0, 1.0)));
    };
    return fmt::format("#{:02x}{:02x}{:02x}", channel(0), channel(1), channel(2));
}

std::string tile_colour(std::optional<double> delta, double extent)
{
    if (!delta)
        return "#fafafa";
    return blend(verdict_colour(*delta >= 0 ? "LICENSE" : "KILL"), std::fabs(*delta) / extent);
}

struct TileText {
    std::vector<std::string> lines;
    int verdict_line = -1; // drawn in the verdict's colour
};

// A tile's text, line for line the window's (widgets/plots/heat_map.cpp cellLabel).
TileText tile_text(const GridGroupCell& c)
{
    TileText t;
    if (c.baseline) {
        t.lines = {"baseline cell", "Δ 0 (reference)"};
        return t;
    }
    if (!c.delta_pct) {
        t.lines = {c.experiment_id.empty() ? c.label : c.experiment_id, c.status.empty() ? "not run" : c.status};
    } else {
        t.lines.push_back(fmt::format("Δ {}{:.1f} %", *c.delta_pct > 0 ? "+" : "", *c.delta_pct));
        if (c.ci95_delta_pct)
            t.lines.push_back(fmt::format("CI [{:.1f}, {:.1f}]", (*c.ci95_delta_pct)[0], (*c.ci95_delta_pct)[1]));
        t.lines.push_back(c.sigma_pct ? fmt::format("σ {:.2f} %  n {}/{}", *c.sigma_pct, c.n_baseline, c.n_treatment)
                                      : fmt::format("n {}/{}", c.n_baseline, c.n_treatment));
        if (!c.verdict.empty()) {
            t.verdict_line = static_cast<int>(t.lines.size());
            t.lines.push_back(c.verdict);
        }
    }
    // Spread-out runs: which device (and Slurm node) ran the cell, on its last line.
    if (!c.ran_on.empty())
        t.lines.push_back(c.ran_on);
    return t;
}

} // namespace

std::string grid_heatmap_svg(const GridGroupReport& g)
{
    const std::size_t rows = g.row_levels.size(), cols = g.col_levels.size();
    if (rows == 0 || cols == 0 || g.cells.empty())
        return {};
    double extent = 1;
    for (const auto& c : g.cells)
        if (c.delta_pct)
            extent = std::max(extent, std::fabs(*c.delta_pct));
    const double cw = 150, ch = 86, left = 120, top = 58, scale_w = 16;
    const std::string title = fmt::format("Grid {}: delta % of {} per cell against the baseline cell", g.id,
        g.metric.empty() ? std::string("the metric") : g.metric);
    // Wide enough for the tiles, the colour scale with its labels, and the title (~6.8 px a character).
    const double W
        = std::max(left + cw * static_cast<double>(cols) + 120, 40 + 6.8 * static_cast<double>(title.size()));
    const double H = top + ch * static_cast<double>(rows) + 64;
    SvgWriter w(W, H);
    w.text(20, 22, title, 12, "start");
    w.text(20, 40, "positive = better; each tile: delta %, its 95% CI, sigma, n per arm, the cell's verdict", 10.5,
        "start", "#555555");
    // Row 0 (the baseline level) at the top, the baseline cell top left, as in the window.
    const auto tile_y = [&](int row) { return top + ch * static_cast<double>(row); };
    for (const auto& c : g.cells) {
        const double x = left + cw * c.col, y = tile_y(c.row);
        w.rect(x, y, cw - 2, ch - 2, tile_colour(c.delta_pct, extent), 1, c.baseline ? "#546e7a" : "");
        const TileText t = tile_text(c);
        const double lh = 13, box_h = lh * static_cast<double>(t.lines.size()) + 6;
        const double by = y + (ch - 2 - box_h) / 2;
        w.rect(x + 10, by, cw - 22, box_h, "#ffffff", 0.75, "");
        for (std::size_t i = 0; i < t.lines.size(); ++i)
            w.text(x + (cw - 2) / 2, by + 3 + lh * (static_cast<double>(i) + 1) - 2, t.lines[i], 10.5, "middle",
                static_cast<int>(i) == t.verdict_line ? verdict_colour(c.verdict) : "#000000");
    }
    for (std::size_t j = 0; j < cols; ++j)
        w.text(left + cw * (static_cast<double>(j) + 0.5), top + ch * static_cast<double>(rows) + 16, g.col_levels[j],
            11, "middle");
    for (std::size_t i = 0; i < rows; ++i)
        w.text(left - 8, tile_y(static_cast<int>(i)) + ch / 2 + 4, g.row_levels[i], 11, "end");
    w.text(left + cw * static_cast<double>(cols) / 2, top + ch * static_cast<double>(rows) + 36, g.col_variable, 12,
        "middle");
    w.text_rotated(16, top + ch * static_cast<double>(rows) / 2, g.row_variable, 12);
    // The colour scale: -extent (KILL red) at the foot, +extent (LICENSE green) at the head.
    const double sx = left + cw * static_cast<double>(cols) + 20, sh = ch * static_cast<double>(rows) - 2;
    const int steps = 40;
    for (int k = 0; k < steps; ++k) {
        const double v = extent - 2 * extent * (k + 0.5) / steps;
        w.rect(sx, top + sh * k / steps, scale_w, sh / steps + 0.5, tile_colour(v, extent), 1, "");
    }
    w.rect(sx, top, scale_w, sh, "none", 1, "#9e9e9e");
    for (const double v : {extent, 0.0, -extent})
        w.text(sx + scale_w + 4, top + sh * (extent - v) / (2 * extent) + 4, fmt::format("{} %", num(v)), 10, "start");
    return w.finish();
}

Chart grid_chart(const GridGroupReport& g)
{
    Chart c {fmt::format("{}-heatmap", g.id), fmt::format("Grid {}: delta % per cell", g.id), grid_heatmap_svg(g)};
    if (!c.svg.empty())
        std::tie(c.width, c.height) = svg_size(c.svg);
    return c;
}

} // namespace kwb::report
