// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The report's charts as SVG text, drawn by the engine (kwb has no Qt). They follow the window's
// plots (widgets/plots): the same Okabe-Ito arm colours, violins with a box, every repetition as a
// dot and the mean as a diamond; the delta with its 95% CI against the kill and license thresholds
// and the grey noise band; the verdict colours of plot_style.cpp. Each function returns a complete
// standalone <svg> document (no external references), or an empty string when there is nothing to
// draw (no runs, no lanes, no grid).

#include "report/report_model.h"

#include <string>
#include <vector>

namespace kwb::report {

struct Chart {
    std::string name; // file stem: "ab-1-distributions"
    std::string title; // "A/B distributions"
    std::string svg;
    double width = 0; // in CSS pixels (1/96 inch)
    double height = 0;
};

std::string distribution_svg(const ExperimentReport& e);
std::string delta_svg(const ExperimentReport& e);
std::string lanes_svg(const ExperimentReport& e);

// A grid group's heat map (empty when the grid has no cells), and it as a chart named
// "<grid id>-heatmap": the report's one drawing of a grid (svg_grid.cpp).
std::string grid_heatmap_svg(const GridGroupReport& g);
Chart grid_chart(const GridGroupReport& g);

// Every chart the experiment has, in report order, empty ones left out.
std::vector<Chart> charts_of(const ExperimentReport& e);

// The colour of an arm (by index) and of a verdict word, as "#rrggbb" (plot_style.cpp's).
std::string arm_colour(std::size_t index);
std::string verdict_colour(const std::string& word);

} // namespace kwb::report
