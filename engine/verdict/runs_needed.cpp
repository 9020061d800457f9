// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/runs_needed.h"

#include "stats/effect.h"
#include "verdict/profile.h"

#include <cmath>
#include <limits>

namespace kwb {

RunsNeeded runs_needed_for_ci(
    double delta_pct, const stats::Interval& ci, std::size_t n_per_arm, const std::vector<double>& thresholds_pct)
{
    RunsNeeded out;
    const auto [lo, hi] = ci;
    std::optional<double> nearest;
    for (double t : thresholds_pct) {
        // "Clears" means the whole interval lies on one side: lo >= t (at or above) or hi < t.
        const bool cleared = lo >= t || hi < t;
        if (!cleared && (!nearest || std::fabs(delta_pct - t) < std::fabs(delta_pct - *nearest)))
            nearest = t;
    }
    if (!nearest || n_per_arm == 0)
        return out;
    out.threshold_pct = nearest;
    const double room = std::fabs(delta_pct - *nearest); // what the CI's side may span
    const double side = delta_pct > *nearest ? delta_pct - lo : hi - delta_pct; // what it spans now
    if (!(room > 0) || !(side > 0))
        return out;
    const double n = static_cast<double>(n_per_arm) * (side / room) * (side / room);
    // Strictly inside: a little more than the break-even n, and at least one more run.
    const double needed = std::max(std::floor(n) + 1, static_cast<double>(n_per_arm) + 1);
    if (needed > kRunsNeededCap)
        return out;
    out.per_arm = static_cast<int>(needed);
    return out;
}

std::vector<double> delta_thresholds(const Profile& profile)
{
    if (rule_family(profile) == "speedup")
        return {stats::speedup_to_delta_pct(profile.kill_speedup, profile.direction),
            stats::speedup_to_delta_pct(profile.license_speedup, profile.direction)};
    return {profile.kill_pct, profile.license_pct};
}

} // namespace kwb
