// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <optional>
#include <string>
#include <vector>

// Phase 1 after a run: the target the user wrote ("from X to Y") against what the experiment
// measured. A stated "from" far from the measured baseline means the target was written for
// another workload or machine, and the goal should be restated before anyone claims it reached.
namespace kwb {

struct TargetCheck {
    double measured_baseline = 0;
    std::optional<double> measured_treatment;
    std::optional<double> baseline_off_pct; // (measured baseline - stated current) / stated current
    bool goal_reached = false; // the treatment is at or beyond the goal
    std::vector<std::string> comments; // plain sentences for the page
};

// The stated current value counts as "what was measured" within this many percent.
inline constexpr double kTargetBaselineTolerancePct = 10;

// nullopt when the experiment has no sample verdict yet or measured another metric.
std::optional<TargetCheck> check_target(const Target& target, const Experiment& experiment);

} // namespace kwb
