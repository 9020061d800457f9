// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The gap rule for bimodal arms (spec/verdict.md, "Bimodality").
//
// Why a gap rule: engineers recognise bimodal runs as two clusters with a clear gap between them
// (a warm and a cold state, a throttled and an unthrottled clock). Averaging such runs describes
// neither state, so a verdict on them would be about an artefact. The rule cuts the sorted values
// at their largest gap and calls the arm bimodal when both sides are populated (at least
// max(2, ceil(15% of n)) runs each) and the gap is more than six pooled standard deviations of the
// two sides: far beyond what the within-cluster spread explains. It fires in under 5% of arms of
// well-behaved data at n = 6 and under 1% from n = 10. Arms of fewer than 6 runs are not assessed.
// The gap must also reach 1% of the median |value| (the resolution floor): closer clusters cannot
// move a decision whose lines are at 5% and 10%, and are often one timer tick apart.

#include <optional>
#include <span>
#include <vector>

namespace kwb::stats {

inline constexpr std::size_t kBimodalMinN = 6;
inline constexpr double kBimodalGapFloor = 0.01; // of the median |value|

struct Mode {
    double share = 0; // fraction of the arm's runs in this cluster
    double mean = 0;
};

struct Bimodality {
    // nullopt = not assessed (fewer than 6 runs); otherwise whether the arm is bimodal.
    std::optional<bool> bimodal;
    // For a bimodal arm, both modes, the larger share first (the low side first on a tie).
    std::vector<Mode> modes;
    // The split that was examined (assessed arms with distinct values): the gap, the pooled
    // standard deviation and the side sizes.
    double gap = 0;
    double pooled_sd = 0;
    std::size_t n_low = 0;
    std::size_t n_high = 0;
};

Bimodality assess_bimodality(std::span<const double> values);

} // namespace kwb::stats
