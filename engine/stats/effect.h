// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The size of a change, always signed so that positive means "better" whichever way the metric
// improves. delta% is relative to the baseline mean because thresholds ("license at 10%") are
// stated that way in the methodology; speedup is the ratio the quantisation plans talk in.

#include "util/direction.h"

namespace kwb::stats {

// 100 * (b - t) / b when lower is better, 100 * (t - b) / b when higher is better.
inline double delta_pct(double baseline, double treatment, Direction direction)
{
    return direction == Direction::Lower ? 100.0 * (baseline - treatment) / baseline
                                         : 100.0 * (treatment - baseline) / baseline;
}

// baseline / treatment when lower is better, treatment / baseline when higher is better.
inline double speedup(double baseline, double treatment, Direction direction)
{
    return direction == Direction::Lower ? baseline / treatment : treatment / baseline;
}

// The delta% that a given speedup amounts to (used to put speedup thresholds on the delta% axis).
inline double speedup_to_delta_pct(double s, Direction direction)
{
    return direction == Direction::Lower ? 100.0 * (1.0 - 1.0 / s) : 100.0 * (s - 1.0);
}

} // namespace kwb::stats
