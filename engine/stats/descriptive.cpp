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

double percentile_sorted(std::span<const double> sorted, double q)
{
    const std::size_t n = sorted.size();
    if (n == 0)
        return std::nan("");
    const double h = (static_cast<double>(n) - 1) * q / 100.0;
    const double lo_f = std::floor(h);
    const auto lo = static_cast<std::size_t>(lo_f);
    if (lo + 1 >= n)
        return sorted[n - 1];
    const double frac = h - lo_f;
    const double a = sorted[lo];
    const double b = sorted[lo + 1];
    // numpy's lerp: exact at both ends and monotone.
    return frac >= 0.5 ? b - (b - a) * (1 - frac) : a + (b - a) * frac;
}

double percentile(std::span<const double> values, double q)
{
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return percentile_sorted(sorted, q);
}

namespace {

TukeyOutliers tukey_sorted(std::span<const double> sorted)
{
    TukeyOutliers out;
    if (sorted.empty())
        return out;
    const double q1 = percentile_sorted(sorted, 25);
    const double q3 = percentile_sorted(sorted, 75);
    const double iqr = q3 - q1;
    for (double v : sorted) {
        const double beyond = v < q1 ? q1 - v : (v > q3 ? v - q3 : 0.0);
        if (beyond > 1.5 * iqr)
            ++out.mild;
        if (beyond > 3.0 * iqr)
            ++out.extreme;
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
