// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>

// The exact (Clopper-Pearson) confidence interval of a binomial proportion: k events in n
// trials. Conservative (coverage at least the level for every true p), which is what a
// false-alarm rate over a few dozen A/A runs needs: a normal approximation would give [0, 0] at
// k = 0. Bounds from the beta distribution's quantiles (Boost.Math).
namespace kwb::stats {

// [lo, hi] for 0 <= k <= n, n >= 1, 0 < level < 1; lo = 0 at k = 0 and hi = 1 at k = n.
// Throws std::invalid_argument otherwise.
std::array<double, 2> clopper_pearson(int k, int n, double level = 0.95);

} // namespace kwb::stats
