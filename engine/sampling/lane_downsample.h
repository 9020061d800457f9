// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <cstddef>

// Lanes stored in a study are bounded: a lane that grows past kMaxLanePoints is reduced to half
// that many points by min/max bucketing (each bucket of consecutive points keeps its lowest and
// its highest point, in time order), so a 1 ms spike in an hour-long run survives while the file
// stays small. Reducing to half means a lane is reduced once per kMaxLanePoints/2 new points,
// not on every reading.
namespace kwb {

inline constexpr size_t kMaxLanePoints = 4000;

// Reduces `lane` to at most `target` points (target >= 2) keeping each bucket's min and max.
void downsample_min_max(SamplerLane& lane, size_t target);

// Appends one point and reduces the lane to kMaxLanePoints / 2 when it exceeds `max_points`.
void append_bounded(SamplerLane& lane, double t_s, double value, size_t max_points = kMaxLanePoints);

} // namespace kwb
