// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Percentile-bootstrap confidence intervals of delta% (spec/verdict.md, "Evidence").
//
// Why a bootstrap: run times are rarely normal (a long right tail, a throttled run), and an
// engineer wants "how far could the true delta% be from what I measured" without assuming a
// shape. Resampling each arm with replacement (same n) and recomputing delta% many times gives
// the spread of delta% that these runs alone support; the middle 95% of those resampled deltas is
// the interval. With few runs the interval is honest about being wide.
//
// Determinism: the same input always gives the same interval. The generator is std::mt19937_64
// seeded with kBootstrapSeed, drawing all baseline indices then all treatment indices of each
// resample in turn; an index in [0, n) is taken from a 64-bit draw by Lemire's multiply-shift
// (no implementation-defined distribution), so the interval is the same on every platform.

#include "util/direction.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace kwb::stats {

inline constexpr int kBootstrapResamples = 10000;
inline constexpr std::uint64_t kBootstrapSeed = 0x6b77622d76657264ULL; // "kwb-verd"

// Above this many values in an arm, a resampled mean is drawn from its central-limit law (normal
// around the sample mean with spread sd / sqrt(n), n denominator) instead of by resampling n
// values: the same 10,000 resamples and percentiles, O(n) in all instead of O(n) per resample,
// so 1,000,000 values per arm take well under a second instead of minutes. At such n the
// resampled mean is normal to far better than the percentiles' own Monte-Carlo error (skewness
// shrinks as 1/sqrt(n)); bench/results/bootstrap_large_n.md compares the two. Smaller arms keep
// the exact resampling, so every fixture's interval is unchanged.
inline constexpr std::size_t kExactBootstrapMaxN = 20000;

using Interval = std::array<double, 2>;

// 95% CI of delta% of the means, resampling each arm independently. nullopt when an arm has
// fewer than 2 values.
std::optional<Interval> bootstrap_delta_ci(std::span<const double> baseline, std::span<const double> treatment,
    Direction direction, int resamples = kBootstrapResamples, std::uint64_t seed = kBootstrapSeed);

// The same interval always by resampling n values (what bootstrap_delta_ci does up to
// kExactBootstrapMaxN); for the comparison in bench/.
std::optional<Interval> bootstrap_delta_ci_exact(std::span<const double> baseline, std::span<const double> treatment,
    Direction direction, int resamples = kBootstrapResamples, std::uint64_t seed = kBootstrapSeed);

// 95% CI of the mean of per-pair values (paired delta%), resampling pairs. nullopt when fewer
// than 2 pairs.
std::optional<Interval> bootstrap_mean_ci(
    std::span<const double> values, int resamples = kBootstrapResamples, std::uint64_t seed = kBootstrapSeed);

// The building blocks of the intervals above, for estimates built from several arms (a grid's
// interaction): the mean of one resample of `values` (same n, with replacement, drawn as above),
// and the 2.5th and 97.5th percentiles of resampled statistics (sorts them).
double resampled_mean(std::mt19937_64& rng, std::span<const double> values);
Interval central_95(std::vector<double>& statistics);

} // namespace kwb::stats
