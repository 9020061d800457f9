// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>

// A repetition's window on a lane: the readings whose time falls in [t0, t1], found by binary
// search on the lane's clock. Lanes are recorded in time order; a lane whose t_s is not sorted (or
// whose arrays differ in length) is not usable this way, and lane_in_time_order says so once, so
// a caller checks a lane once and then places every repetition in O(log n) rather than scanning
// the whole lane per repetition (a 1 kHz lane over a long run holds millions of readings).
// The one owner of "which readings belong to a repetition": the metric diff, the GPU-sharing rule
// and the cycles comparison all ask it.
namespace kwb {

struct SamplerLane;

struct LaneSpan {
    std::size_t begin = 0, end = 0; // readings [begin, end) lie inside the window
    bool empty() const { return begin == end; }
};

bool lane_in_time_order(const SamplerLane& lane);

// Precondition: lane_in_time_order(lane).
LaneSpan readings_within(const SamplerLane& lane, double t0, double t1);

} // namespace kwb
