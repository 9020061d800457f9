// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/workload.h"

#include <functional>
#include <optional>
#include <vector>

// Repetitions long enough to time (nvbench and Google Benchmark do the same): a repetition is a
// batch of launches whose count is found once per experiment, so that the FASTER arm's
// repetition lasts at least the plan's min_rep_ms; both arms then run the same count, and the
// values stored are per launch. One mechanism for both backends: a CPU iteration and a GPU
// launch are both "one call of the kernel".
namespace kwb {

struct LaunchCalibration {
    int launches = 1;
    // The repetition time (ms) each arm measured at the final count: shows why the count is what it is.
    std::vector<double> rep_ms;
};

// Grows each arm's count from 1 by the measured time per launch until a repetition lasts
// min_rep_ms (the timed region the workload reports, else wall time by `clock_s`), then takes the
// largest count over the arms. nullopt when a workload has no launch count (set_launches false).
// Never more than `max_launches`. Throws what the workload throws.
std::optional<LaunchCalibration> calibrate_launches(const std::vector<PreparedWorkload*>& arms, double min_rep_ms,
    const std::function<double()>& clock_s, int max_launches = 1 << 20);

} // namespace kwb
