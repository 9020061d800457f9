// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Descriptive statistics of one arm (spec/verdict.md, "Definitions").
//
// Why these and not others: a verdict compares two means, so the mean and the sample standard
// deviation (n - 1 denominator: we estimate the spread of the process, not of these few runs) are
// what the rules use. The coefficient of variation (cv%) puts that spread on the scale of the
// mean, so one threshold ("sigma below 5%") works for milliseconds and for TFLOP/s alike.
// Percentiles are numpy's default (stats/percentile.h). Tukey's fences flag runs far from the
// middle half of the data: they are counted, never dropped, because a dropped slow run is a hidden
// regression.

#include "stats/percentile.h"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace kwb::stats {

double mean(std::span<const double> values);
// Sample standard deviation (n - 1 denominator); nullopt when n < 2.
std::optional<double> sample_stddev(std::span<const double> values);
// percentile_sorted(), percentile() and the Tukey fences: stats/percentile.h.

// Counts of values beyond the Tukey fences: "mild" counts every value more than 1.5 IQR below
// the first quartile or above the third (extreme ones included), "extreme" those beyond 3 IQR.
struct TukeyOutliers {
    int mild = 0;
    int extreme = 0;
};
TukeyOutliers tukey_outliers(std::span<const double> values);

// Everything the verdict reports about one arm. Values must be non-empty.
struct ArmSummary {
    std::size_t n = 0;
    double mean = 0;
    double median = 0;
    std::optional<double> stddev; // null when n = 1
    std::optional<double> cv_pct; // 100 * stddev / mean; null when n = 1
    double min = 0;
    double max = 0;
    double p50 = 0;
    double p90 = 0;
    double p99 = 0;
    TukeyOutliers outliers;
};
ArmSummary summarize(std::span<const double> values);

} // namespace kwb::stats
