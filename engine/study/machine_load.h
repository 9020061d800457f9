// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <optional>
#include <string>
#include <vector>

// What the samplers saw of the machine while an experiment ran, and what it means: the one owner
// of "was the machine busy". The verdict's reasons (an INCONCLUSIVE for instability names the
// measured cause instead of generic advice) and the matched control "no other process on the
// device" (ticked or failed from the measurement) both ask here.
//
// Evidence, from the experiment's lanes and samples (sampling/procfs_sampler.h, NVML):
//   - other_cpu: the share of the whole machine's CPU that other processes took (mean over the run);
//   - bench_thread_cpu: the share of one core the repetitions' thread got (its 10th-90th
//     percentile), meaningful for a CPU run only (a GPU run's host thread waits);
//   - the clock: the judged repetitions' SM clock (per sample), else the nvml_sm_clock lane; a
//     fall is 1 - lowest / highest.
namespace kwb {

// At or above this mean share of the machine, other processes count as heavy: the control fails.
inline constexpr double kHeavyOtherCpuPct = 20;
// A CPU run's thread that got less than this share of a core (10th percentile) was descheduled.
inline constexpr double kStarvedThreadPct = 90;
// A clock that fell by this much during the judged repetitions is named.
inline constexpr double kClockDropPct = 10;

struct MachineLoad {
    std::optional<double> other_cpu_pct; // mean, % of the machine
    std::optional<double> other_cpu_peak_pct;
    std::optional<double> thread_p10_pct, thread_p90_pct; // % of one core; CPU runs only
    std::optional<double> clock_high_mhz, clock_low_mhz;

    std::optional<double> clock_drop_pct() const;
    bool heavy_other_processes() const { return other_cpu_pct && *other_cpu_pct >= kHeavyOtherCpuPct; }
    bool thread_starved() const { return thread_p10_pct && *thread_p10_pct < kStarvedThreadPct; }
    bool clock_fell() const { return clock_drop_pct() && *clock_drop_pct() >= kClockDropPct; }
};

MachineLoad machine_load(const Experiment& e);

// The control "no other process on the device": true (ticked) below kHeavyOtherCpuPct, false
// (failed) at or above it, nullopt without an other_cpu lane. `how` says what was measured.
std::optional<bool> no_heavy_process(const MachineLoad& load, std::string& how);

// The sentences an unstable run's verdict gets: what was seen ("other processes took 45% of the
// CPU", "the benchmark thread got 50-70% of a core", "the clock fell by 20% (1980 to 1584 MHz)"),
// or, when nothing was out of line, what was measured and found normal. Empty without evidence.
std::vector<std::string> busy_machine_reasons(const MachineLoad& load);

} // namespace kwb
