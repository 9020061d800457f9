// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Two-sided tests of "baseline and treatment come from the same process" (spec/verdict.md).
//
// Welch's t-test compares the means without assuming equal spreads: the treatment often changes
// the spread too (a faster kernel with less jitter), so the pooled-variance t-test would be wrong
// exactly when it matters. Its p-value is what scipy.stats.ttest_ind(equal_var=False) gives.
//
// Mann-Whitney U asks whether a run of one arm tends to beat a run of the other, using only the
// ranks: one wild run cannot carry it, which makes it the cross-check of Welch on skewed or
// outlier-prone timings. With small arms and no ties the exact null distribution of U is cheap
// and exact; otherwise the normal approximation (tie- and continuity-corrected) is used, as
// scipy.stats.mannwhitneyu does. The distributions come from Boost.Math.

#include <optional>
#include <span>
#include <string>

namespace kwb::stats {

// nullopt when an arm has fewer than 2 values or both arms have zero variance.
std::optional<double> welch_p(std::span<const double> a, std::span<const double> b);

enum class MannWhitneyMethod { Exact, Asymptotic };
std::string_view to_string(MannWhitneyMethod m);

struct MannWhitneyResult {
    double u1 = 0; // U of the first sample (scipy's statistic)
    double p = 1; // two-sided
    MannWhitneyMethod method = MannWhitneyMethod::Asymptotic;
};

// Method rule of the spec: exact when either arm has fewer than 8 values and there are no ties,
// otherwise asymptotic. Both spans must be non-empty.
MannWhitneyResult mann_whitney(std::span<const double> a, std::span<const double> b);
// The same with the method forced (tests compare both against scipy).
MannWhitneyResult mann_whitney(std::span<const double> a, std::span<const double> b, MannWhitneyMethod method);

} // namespace kwb::stats
