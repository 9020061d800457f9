// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How a roofline (verdict/roofline.h) is drawn, once, for the window's plot
// (widgets/plots/roofline_plot.h) and the report's chart (report/svg_roofline.cpp): the log-log
// frame that holds every roof, the ridge and both arms' points with their spread, and each roof
// as a polyline in data coordinates (intensity FLOP/byte, TFLOP/s) with its label. On log-log
// axes a bandwidth roof (TFLOP/s = GB/s x intensity / 1000) is a straight line, so its two ends
// are the whole line; it stops where it meets the compute roof.

#include "verdict/roofline.h"

#include <string>
#include <utility>
#include <vector>

namespace kwb {

struct RooflineFrame {
    double intensity_lo = 0.1, intensity_hi = 1000; // FLOP/byte, x
    double tflops_lo = 0.01, tflops_hi = 1000; // TFLOP/s, y
};

enum class RoofKind { Dram, L2, Compute };

struct RoofSegment {
    RoofKind kind = RoofKind::Dram;
    std::string label; // "DRAM 4.38 TB/s (read-only ceiling)"
    std::vector<std::pair<double, double>> points; // (intensity, TFLOP/s), left to right
};

// The frame: a factor of 4 beyond the leftmost and rightmost of the ridge and the points (their
// IQRs and measured-DRAM intensities) along x, of 2.5 below the lowest and above the highest along y; the DRAM roof's
// value at the left edge counts as a low point, so the roof enters the frame on its left side.
RooflineFrame roofline_frame(const Roofline& r);

// The roofs as the frame shows them: DRAM, then L2 (drawn, bounds nothing), then compute.
std::vector<RoofSegment> roofline_segments(const Roofline& r, const RooflineFrame& frame);

// "ridge 226 FLOP/B"; empty without a ridge.
std::string roofline_ridge_label(const Roofline& r);

// The lines under the chart: each arm's line (roofline_arm_line: its point, bound and fraction of
// the roof, or why it has no point), then each derived count with how it was derived, then the
// notes (a missing roof).
std::vector<std::string> roofline_caption(const Roofline& r);

} // namespace kwb
