// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

// The one rule for the range of a lane's readings, applied where readings enter a study (the
// runner's sampler and workload sinks), so the live stream, the study file, reports and the metric
// diff all see the same values.
//
// A percentage lane (unit "%") reads within [0, 100]. Counter skew can carry a reading slightly
// past 100 (two counters of one ratio sampled a little apart): up to kPercentSkewTolerance points
// above, the reading is clamped to 100. Anything further above, any negative reading and any
// non-finite one cannot be normalised: it is dropped, never drawn, and counted on its lane
// (SamplerLane::dropped_out_of_range, shown wherever lanes are listed). Other units pass unchanged
// except non-finite readings, which are dropped and counted the same way.
namespace kwb {

inline constexpr double kPercentMax = 100.0;
inline constexpr double kPercentSkewTolerance = 0.5;

bool is_percentage_unit(std::string_view unit);

struct LaneReading {
    bool keep = true; // false: drop the reading and count it
    bool clamped = false; // kept at 100 from (100, 100 + tolerance]
    double value = 0;
};

LaneReading check_lane_reading(std::string_view unit, double value);

struct SamplerLane;
// What a report shows as a lane's dropped readings: those the rule dropped where they entered the
// study, plus any that a lane recorded before the rule still holds (a report does not draw them).
unsigned long long lane_dropped_readings(const SamplerLane& lane);

} // namespace kwb
