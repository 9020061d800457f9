// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/verdict_types.h"

#include <cstddef>
#include <string>
#include <vector>

// Change points of a benchmark's history (docs/ledger.md, "Change points"). The method, stated:
// at every split i of the series (one value per point, oldest first), the `window` values before
// it and the `window` values from it on are judged as baseline and treatment by the verdict
// engine (judge_samples, unpaired, under the benchmark's profile). A split is a candidate when
// the sample rules get past rule 4 -- both windows have min_n values (rule 1), neither is unstable
// (rule 2), neither is bimodal (rule 3, assessed from 6 values) and |delta%| > noise_k x sigma%
// (rule 4, the noise band) -- and Welch's two-sample t-test gives p < alpha. Candidates are taken
// in order of p (smallest first, then the earlier split), each kept when no kept change point
// lies within `window` points of it. A flat history gives none; a step gives one at the step.
namespace kwb::ledger {

struct ChangePointOptions {
    int window = 5; // values on each side of a split
    double alpha = 0.001; // Welch's p must be below this
};

struct ChangePoint {
    std::size_t index = 0; // the first point after the change
    double delta_pct = 0; // of the window means, positive = better (the profile's direction)
    double sigma_pct = 0; // max of the two windows' cv%
    double p_welch = 1;
    std::string word; // the windows' sample verdict word (LICENSE: better, KILL: worse, ...)
    bool regression = false; // delta% < 0: the metric got worse
};

// Throws std::invalid_argument for a window below 2 or an alpha outside (0, 1).
std::vector<ChangePoint> find_change_points(
    const std::vector<double>& values, const Profile& profile, const ChangePointOptions& options = {});

// "Change points: sliding windows of 5 points, Welch p < 0.01 outside noise_k x sigma% (2 x)".
std::string describe_method(const Profile& profile, const ChangePointOptions& options);

} // namespace kwb::ledger
