// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The confidence sequence behind decision stopping (docs/stopping.md).
//
// At look k (k = 1, 2, ... one look per block once every arm has `first_n` runs) the interval for
// delta% is a Student-t interval at level 1 - alpha_k with alpha_k = alpha * 6 / (pi^2 k^2). The
// alpha_k sum to alpha, so by the union bound every interval of the sequence covers the true
// delta% at once with probability at least 1 - alpha, however many looks are taken and whenever
// the run stops: an early stop is as trustworthy as a single planned look at level alpha.
//
// Assumptions: the per-pair delta% (paired ABBA runs) or the two arms' values are independent
// draws with a stable distribution close enough to normal for a t interval (drift within a block
// is cancelled by ABBA; an arm with a trend breaks the assumption, as it breaks any verdict).

#include "util/direction.h"
#include "verdict/verdict_types.h"

#include <optional>
#include <vector>

namespace kwb {

inline constexpr double kSequentialAlpha = 0.01;

// alpha_k of look k >= 1.
double look_alpha(double alpha, int look);

struct SequentialInterval {
    double delta_pct = 0;          // the estimate the interval is centred on
    DeltaInterval interval{};      // [lo, hi]
    double level = 0;              // 1 - alpha_k
    bool paired = false;           // from per-pair delta%, else from the two means (delta method)
};

// Paired when both arms hold the same count and `paired`; values must be positive and finite.
// nullopt with fewer than 3 values in an arm (a t interval needs 2 degrees of freedom to be finite
// at the tiny alpha_k of later looks).
std::optional<SequentialInterval> sequential_interval(const std::vector<double>& baseline,
                                                      const std::vector<double>& treatment, bool paired,
                                                      Direction direction, double alpha_k);

} // namespace kwb
