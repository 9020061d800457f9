// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/chart_labels.h"

#include <algorithm>
#include <cmath>

namespace kwb {

bool LabelRoom::inside(double label_left, double width) const
{
    return label_left >= left && label_left + width <= right;
}

bool LabelRoom::crosses_no_line(double label_left, double width) const
{
    return std::none_of(lines.begin(), lines.end(),
        [&](double x) { return x >= label_left - clearance && x <= label_left + width + clearance; });
}

std::optional<double> LabelRoom::nearest_free(double ideal, double width, double min_left, double max_left) const
{
    std::optional<double> best;
    for (double l = std::max(min_left, left); l <= std::min(max_left, right - width); l += 1)
        if (crosses_no_line(l, width) && (!best || std::fabs(l - ideal) < std::fabs(*best - ideal)))
            best = l;
    return best;
}

namespace {

double clamp_into(const LabelRoom& room, double label_left, double width)
{
    return std::clamp(label_left, room.left, std::max(room.left, room.right - width));
}

} // namespace

double place_centred_label(const LabelRoom& room, double centre, double width)
{
    const double ideal = centre - width / 2;
    if (room.inside(ideal, width) && room.crosses_no_line(ideal, width))
        return ideal;
    return room.nearest_free(ideal, width, room.left, room.right).value_or(clamp_into(room, ideal, width));
}

DeltaLabelPlace place_delta_label(const LabelRoom& room, double point, double one_line_width, double two_line_width)
{
    const bool right_half = point > (room.left + room.right) / 2; // the nearer side has more room
    for (const bool two : {false, true}) {
        const double w = two ? two_line_width : one_line_width;
        const double near_left = right_half ? point - w : point;
        const double far_left = right_half ? point : point - w;
        for (const double l : {near_left, far_left, point - w / 2})
            if (room.inside(l, w) && room.crosses_no_line(l, w))
                return {two, l};
        if (const auto l = room.nearest_free(point - w / 2, w, point - w, point))
            return {two, *l};
    }
    return {true, clamp_into(room, point - two_line_width / 2, two_line_width)};
}

std::pair<double, double> widen_for_line_labels(
    double lo, double hi, double axis_pixels, const std::vector<LineLabel>& labels, double gap)
{
    if (!(hi > lo) || !(axis_pixels > 0))
        return {lo, hi};
    // Labels wider than most of the axis cannot fit at any range: leave it (a tiny window).
    double left_need = 0;
    double right_need = 0;
    for (const LineLabel& l : labels) {
        double& need = l.left_of_line ? left_need : right_need;
        need = std::max(need, l.width + gap);
    }
    if (left_need + right_need > 0.8 * axis_pixels)
        return {lo, hi};
    // Each widening makes a pixel worth more data units, so repeat until nothing moves; labels
    // that fit in the axis converge in a few rounds.
    for (int round = 0; round < 64; ++round) {
        const double per_pixel = (hi - lo) / axis_pixels;
        double new_lo = lo;
        double new_hi = hi;
        for (const LineLabel& l : labels) {
            const double reach = (l.width + gap) * per_pixel;
            if (l.left_of_line)
                new_lo = std::min(new_lo, l.at - reach);
            else
                new_hi = std::max(new_hi, l.at + reach);
        }
        const bool settled = (lo - new_lo) + (new_hi - hi) < 1e-9 * (hi - lo);
        lo = new_lo;
        hi = new_hi;
        if (settled)
            break;
    }
    return {lo, hi};
}

} // namespace kwb
