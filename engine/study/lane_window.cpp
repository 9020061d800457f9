// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/lane_window.h"

#include "study/study.h"

#include <algorithm>

namespace kwb {

bool lane_in_time_order(const SamplerLane& lane)
{
    return lane.t_s.size() == lane.values.size() && std::is_sorted(lane.t_s.begin(), lane.t_s.end());
}

LaneSpan readings_within(const SamplerLane& lane, double t0, double t1)
{
    const auto lo = std::lower_bound(lane.t_s.begin(), lane.t_s.end(), t0);
    const auto hi = std::upper_bound(lo, lane.t_s.end(), t1);
    return {static_cast<std::size_t>(lo - lane.t_s.begin()), static_cast<std::size_t>(hi - lane.t_s.begin())};
}

} // namespace kwb
