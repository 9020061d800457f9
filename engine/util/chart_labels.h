// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where the delta chart's labels go: the one rule that the window's sigma chart
// (widgets/plots/sigma_chart.cpp) and the report's delta chart (report/svg_charts.cpp) both ask,
// so the two drawings of a verdict keep their labels off each other and off the kill and license
// lines the same way. Everything is in pixels along x; each label has its own row (threshold
// labels at the top, the delta's in the middle, the noise band's at the foot), so only the
// vertical threshold lines and the chart's edges can collide with a label.

#include <optional>
#include <utility>
#include <vector>

namespace kwb {

// The room a row of labels has: [left, right] in pixels, and the x of every vertical line no
// label may cross, with `clearance` pixels kept either side of a line.
struct LabelRoom {
    double left = 0;
    double right = 0;
    std::vector<double> lines;
    double clearance = 3;

    bool inside(double label_left, double width) const;
    bool crosses_no_line(double label_left, double width) const;
    // The left edge in [min_left, max_left], inside the room and crossing no line, nearest to
    // `ideal`, if any (searched pixel by pixel).
    std::optional<double> nearest_free(double ideal, double width, double min_left, double max_left) const;
};

// The noise band's label, centred on `centre` (zero) where that is free, else at the free place
// nearest it; where nothing is free, centred as far as the room allows. Returns its left edge.
double place_centred_label(const LabelRoom& room, double centre, double width);

// The delta's label, beside its point at `point`: one line, then two; on the point's nearer side
// (the side of the chart's centre), the other side, centred on it, else the free place over the
// point nearest centred on it; where nothing is free, two lines centred as far as the room allows.
struct DeltaLabelPlace {
    bool two_lines = false;
    double left = 0;
};
DeltaLabelPlace place_delta_label(const LabelRoom& room, double point, double one_line_width, double two_line_width);

// A label beside a vertical line: the kill label ends `gap` pixels left of its line, the license
// label starts `gap` pixels right of its line.
struct LineLabel {
    double at = 0; // the line's x, in data units
    double width = 0; // the label's width in pixels
    bool left_of_line = false;
};

// The x range [lo, hi], widened until every line label fits inside an axis `axis_pixels` wide:
// threshold labels are never clipped by the chart's edge. Returns [lo, hi] unchanged when they
// already fit; when the labels together are wider than the axis, the widest range tried.
std::pair<double, double> widen_for_line_labels(
    double lo, double hi, double axis_pixels, const std::vector<LineLabel>& labels, double gap = 4);

} // namespace kwb
