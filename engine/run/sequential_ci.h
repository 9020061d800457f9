// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The confidence sequence behind decision stopping (docs/stopping.md).
//
// At look k (k = 1, 2, ... one look per block once every arm has `first_n` runs) each bound of the
// interval for delta% is a one-sided Student-t bound at level 1 - alpha_k with
// alpha_k = alpha * 6 / (pi^2 k^2). The alpha_k sum to alpha, so by the union bound every lower
// bound of the sequence lies below the true delta% at once with probability at least 1 - alpha
// (likewise every upper bound above it, with its own alpha), however many looks are taken and
// whenever the run stops.
//
// Assumptions: the per-pair delta% (paired ABBA runs) or the two arms' values are independent
// draws with a stable distribution close enough to normal for a t interval (drift within a block
// is cancelled by ABBA; an arm with a trend breaks the assumption, as it breaks any verdict).

#include "util/direction.h"
#include "verdict/verdict_types.h"

#include <optional>
#include <vector>

namespace kwb {

// The lower bound (the only one that can stop a run for a license) is spent at kSequentialAlpha:
// a wrong early LICENSE has probability at most 1%. The upper bound (stops for kill or noise,
// which can only cost power, never license a change) is spent at kSequentialUpperAlpha.
inline constexpr double kSequentialAlpha = 0.01;
inline constexpr double kSequentialUpperAlpha = 0.05;

// alpha_k of look k >= 1.
double look_alpha(double alpha, int look);

struct SequentialInterval {
    double delta_pct = 0; // the estimate the interval is centred on
    DeltaInterval interval {}; // [lo, hi]
    double level = 0; // 1 - alpha_k of the lower bound (one-sided)
    bool paired = false; // from per-pair delta%, else from the two means (delta method)
};

// Paired when both arms hold the same count and `paired`; values must be positive and finite.
// nullopt with fewer than 3 values in an arm (a t interval needs 2 degrees of freedom to be finite
// at the tiny alpha_k of later looks).
std::optional<SequentialInterval> sequential_interval(const std::vector<double>& baseline,
    const std::vector<double>& treatment, bool paired, Direction direction, double alpha_lower_k, double alpha_upper_k);

} // namespace kwb
