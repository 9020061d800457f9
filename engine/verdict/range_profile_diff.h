// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/range_profile.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// The diff table of `kwb profile --arms all`: baseline -> treatment for each range-profiler metric,
// the repetition being one launch of the workload, beyond or within its noise by the verdict's rule
// (metric_diff.h's diff_repetitions: |delta%| > noise_k x max(cv%_B, cv%_T) of the per-launch values).
// Rows come first for the whole launch (all its kernels, each metric aggregated by its rule:
// range_profile.h), which compares arms whose kernels have different names (two tile sizes of one
// template are two kernels); then, when a launch runs more than one kernel, per kernel name found in
// both arms. An arm whose metrics cannot be had (a command or worker arm) gives no rows and a note.
namespace kwb {

inline constexpr const char* kWholeLaunch = "launch";

struct RangeDiffRow {
    std::string scope; // kWholeLaunch, or a kernel name
    MetricDiffRow row;
};

struct RangeProfileDiff {
    std::string baseline_arm, treatment_arm;
    double noise_k = 2;
    std::vector<RangeDiffRow> rows;
    std::vector<std::string> notes; // why rows are missing ("cannot be had for arm ...")
};

RangeProfileDiff range_profile_diff(const RangeProfileArm& baseline, const RangeProfileArm& treatment, double noise_k);

// What `kwb profile --arms all --json` prints, {"range_profile": {...}} (docs/cli.md):
//   "arms": [{"arm", "unavailable"?, "launches", "passes", "kernels": [{"name", "metrics": {key:
//   {"mean", "n", "ci95_low", "ci95_high", "cv_pct", "unit"}}}], "launch": {key: {...}}, "notes"}],
//   "diffs": [{"baseline", "treatment", "noise_k", "rows": [{"scope", "metric", "unit", "baseline",
//   "treatment", "delta", "delta_pct", "noise_pct", "beyond_noise"}], "notes"}], "metrics": [{"key",
//   "cupti", "unit", "what"}]
nlohmann::json range_profile_json(const std::vector<RangeProfileArm>& arms, const std::vector<RangeProfileDiff>& diffs);

} // namespace kwb
