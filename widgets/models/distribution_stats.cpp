// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/distribution_stats.h"

#include "stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace kwb::gui {

double silvermanBandwidth(const std::vector<double>& sorted, double stddev)
{
    const double n = static_cast<double>(sorted.size());
    const double iqr = stats::percentile_sorted(sorted, 75) - stats::percentile_sorted(sorted, 25);
    double spread = stddev;
    if (iqr > 0 && (!(spread > 0) || iqr / 1.34 < spread))
        spread = iqr / 1.34;
    if (!(spread > 0)) {
        // All values equal (or one value): a narrow bump, 1% of the value, still shows where it is.
        const double scale = std::abs(sorted.empty() ? 1.0 : sorted.front());
        spread = scale > 0 ? 0.01 * scale : 1.0;
    }
    return 0.9 * spread * std::pow(n, -0.2);
}

ArmDistribution describe(const QString& name, const std::vector<double>& values, int kde_points)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    ArmDistribution d;
    d.name = name;
    d.n = static_cast<int>(values.size());
    d.values = QList<double>(values.begin(), values.end());
    if (values.empty()) {
        d.mean = d.median = d.stddev = d.cv_pct = d.min = d.max = d.q1 = d.q3 = nan;
        d.whisker_low = d.whisker_high = nan;
        return d;
    }
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const double n = static_cast<double>(sorted.size());
    d.mean = stats::mean(values);
    d.median = stats::percentile_sorted(sorted, 50);
    d.min = sorted.front();
    d.max = sorted.back();
    d.q1 = stats::percentile_sorted(sorted, 25);
    d.q3 = stats::percentile_sorted(sorted, 75);
    if (const auto sd = stats::sample_stddev(values)) {
        d.stddev = *sd;
        d.cv_pct = 100.0 * d.stddev / d.mean;
    } else {
        d.stddev = d.cv_pct = nan;
    }
    const stats::TukeyFences fences = stats::tukey_fences_sorted(sorted);
    d.whisker_low = d.max;
    d.whisker_high = d.min;
    for (const double v : sorted) {
        if (fences.mild(v)) {
            d.outliers.append(v);
            continue;
        }
        d.whisker_low = std::min(d.whisker_low, v);
        d.whisker_high = std::max(d.whisker_high, v);
    }

    const double h = silvermanBandwidth(sorted, sorted.size() > 1 ? d.stddev : 0.0);
    const double from = d.min - 3 * h;
    const double to = d.max + 3 * h;
    const double norm = 1.0 / (n * h * std::sqrt(2 * std::numbers::pi));
    for (int i = 0; i < kde_points; ++i) {
        const double y = from + (to - from) * i / std::max(1, kde_points - 1);
        double sum = 0;
        for (const double v : sorted) {
            const double z = (y - v) / h;
            sum += std::exp(-0.5 * z * z);
        }
        d.kde_y.append(y);
        d.kde_density.append(norm * sum);
    }
    return d;
}

QList<double> jitterOffsets(int n)
{
    // A low-discrepancy sequence (golden ratio) spreads points evenly without randomness.
    QList<double> out;
    out.reserve(n);
    const double phi = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < n; ++i)
        out.append(2 * std::fmod(0.5 + i * phi, 1.0) - 1);
    return out;
}

} // namespace kwb::gui
