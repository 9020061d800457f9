// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// "How many more runs?" for the CI-based view of a verdict.
//
// A confidence interval narrows roughly as 1/sqrt(n) when the spread stays what it is. If the 95%
// CI of delta% straddles a threshold (kill or license), the verdict cannot be trusted on that
// side yet; scaling the CI's half-width towards that threshold by sqrt(n / n') tells how many runs
// per arm would make it clear the threshold, assuming the point estimate and the spread hold. It
// is an estimate to plan with (and later for decision-based stopping), not a promise.

#include "stats/bootstrap.h"
#include "verdict/verdict.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace kwb {

inline constexpr int kRunsNeededCap = 1000000;

struct RunsNeeded {
    std::optional<int> per_arm; // total runs per arm; null: already clear, or cannot
    std::optional<double> threshold_pct; // the threshold (delta%) it would clear
};

// `thresholds_pct` on the delta% axis. The threshold chosen is the nearest to `delta_pct` among
// those the CI does not clear yet (lo < t <= hi); none -> null (already
// clear); delta% exactly on it, or more than kRunsNeededCap runs -> null (cannot).
RunsNeeded runs_needed_for_ci(
    double delta_pct, const stats::Interval& ci, std::size_t n_per_arm, const std::vector<double>& thresholds_pct);

// The thresholds of a profile on the delta% axis: kill_pct and license_pct, or for the speedup
// family kill_speedup and license_speedup converted to delta%.
std::vector<double> delta_thresholds(const Profile& profile);

} // namespace kwb
