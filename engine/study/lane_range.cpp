// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/lane_range.h"

#include "study/study.h"

#include <cmath>

namespace kwb {

bool is_percentage_unit(std::string_view unit)
{
    return unit == "%";
}

LaneReading check_lane_reading(std::string_view unit, double value)
{
    if (!std::isfinite(value))
        return {false, false, value};
    if (!is_percentage_unit(unit))
        return {true, false, value};
    if (value < 0 || value > kPercentMax + kPercentSkewTolerance)
        return {false, false, value};
    if (value > kPercentMax)
        return {true, true, kPercentMax};
    return {true, false, value};
}

unsigned long long lane_dropped_readings(const SamplerLane& lane)
{
    unsigned long long n = lane.dropped_out_of_range;
    for (const double v : lane.values)
        n += !check_lane_reading(lane.unit, v).keep;
    return n;
}

} // namespace kwb
