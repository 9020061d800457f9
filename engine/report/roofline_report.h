// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The roofline of an experiment in the report (docs/report.md, "Roofline"): the JSON object, the
// table every document format prints, and the chart (svg_roofline.cpp). Every figure is the
// engine's (verdict/roofline.h); this only lays it out.

#include "report/report_model.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kwb::report {

// `experiments[].roofline`: roofs, ridge, each arm's point, bound and fraction of the roof (or why
// it has none), whether the arrow is drawn, the one-line summary and the notes.
nlohmann::json roofline_json(const Roofline& r);

// The table: one row per roof ("roof", its value, what measured it), then one row per arm (its
// point, bound, fraction of the roof), in the header's columns.
std::vector<std::string> roofline_table_header();
std::vector<std::vector<std::string>> roofline_table_rows(const Roofline& r);

// The chart, log-log like the window's (widgets/plots/roofline_plot.h); empty when neither arm
// has a point.
std::string roofline_svg(const ExperimentReport& e);

} // namespace kwb::report
