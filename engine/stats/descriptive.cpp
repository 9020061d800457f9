// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kwb::stats {

double mean(std::span<const double> values)
{
    if (values.empty())
        return std::nan("");
    // Two passes (sum, then a correction with the residuals) keep the mean exact for constant
    // arms and close to numpy's pairwise sum for long ones.
    const double n = static_cast<double>(values.size());
    const double m = std::accumulate(values.begin(), values.end(), 0.0) / n;
    double residual = 0;
    for (double v : values)
        residual += v - m;
    return m + residual / n;
}

std::optional<double> sample_stddev(std::span<const double> values)
{
    if (values.size() < 2)
        return std::nullopt;
    const double m = mean(values);
    double ss = 0;
    for (double v : values)
        ss += (v - m) * (v - m);
    return std::sqrt(ss / static_cast<double>(values.size() - 1));
}

namespace {

TukeyOutliers tukey_sorted(std::span<const double> sorted)
{
    TukeyOutliers out;
    if (sorted.empty())
        return out;
    const TukeyFences fences = tukey_fences_sorted(sorted);
    for (double v : sorted) {
        out.mild += fences.mild(v);
        out.extreme += fences.extreme(v);
    }
    return out;
}

} // namespace

TukeyOutliers tukey_outliers(std::span<const double> values)
{
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return tukey_sorted(sorted);
}

ArmSummary summarize(std::span<const double> values)
{
    ArmSummary s;
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    s.n = values.size();
    s.mean = mean(values);
    s.stddev = sample_stddev(values);
    if (s.stddev)
        s.cv_pct = 100.0 * *s.stddev / s.mean;
    s.min = sorted.front();
    s.max = sorted.back();
    s.p50 = percentile_sorted(sorted, 50);
    s.median = s.p50;
    s.p90 = percentile_sorted(sorted, 90);
    s.p99 = percentile_sorted(sorted, 99);
    s.outliers = tukey_sorted(sorted);
    return s;
}

} // namespace kwb::stats
