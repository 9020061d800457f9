// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "verdict/verdict.h"

#include <cstdint>
#include <optional>
#include <vector>

// split-half stability check: how often does this setup, under this profile, call a difference where there
// is none? The baseline arm's judged runs are split into two halves and the halves judged against
// each other with the same profile, K times. The two halves ran the same code, so any verdict but
// NOISE is a false alarm; a high rate says the machine or the workload is noisier than the
// profile assumes, and the A/B verdict deserves that much less trust.
//
// The splits: the first is the interleaved one (runs 0, 2, 4... against 1, 3, 5...), which keeps
// both halves under the same drift, like the A/B itself; each further split k is a seeded random
// halving (seed + k) of the runs, each half kept in run order, which also exposes drift the
// interleaved split hides. Halves are judged unpaired. Each half needs min_n runs, so the
// baseline needs at least 2 * min_n judged runs; with fewer there is no calibration.
namespace kwb {

inline constexpr int kDefaultSplitHalves = 5;

// nullopt when `splits` <= 0 or the baseline has fewer than 2 * profile.min_n values.
std::optional<SplitHalfCheck> check_split_half(
    const std::vector<double>& baseline, int splits, const Profile& profile, std::uint64_t seed);

// The two halves of split k (exposed for tests).
std::pair<std::vector<double>, std::vector<double>> split_halves_of(
    const std::vector<double>& baseline, int k, std::uint64_t seed);

} // namespace kwb
