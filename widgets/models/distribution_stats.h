// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <vector>

namespace kwb::gui {

// What the Results view draws for one arm: the descriptive numbers (computed by the engine's
// stats::mean, sample_stddev and percentile_sorted, so the table agrees with the verdict's arms),
// Tukey box whiskers, and a Gaussian kernel density for the violin. Drawing helpers only: the
// verdict's own numbers come from the verdict engine, never from here.
struct ArmDistribution {
    QString name;
    int n = 0;
    double mean = 0;
    double median = 0;
    double stddev = 0; // NaN when n < 2
    double cv_pct = 0; // NaN when n < 2
    double min = 0;
    double max = 0;
    double q1 = 0;
    double q3 = 0;
    double whisker_low = 0; // lowest value within 1.5 IQR of q1
    double whisker_high = 0; // highest value within 1.5 IQR of q3
    QList<double> outliers; // beyond the whiskers
    QList<double> values; // as given (run order)
    QList<bool> throttled; // per value, where known: drawn apart, never left out
    QList<double> kde_y; // density evaluation points (the metric's axis)
    QList<double> kde_density; // density at each point, integrating to 1
};

ArmDistribution describe(const QString& name, const std::vector<double>& values, int kde_points = 80);

// Silverman's rule of thumb: 0.9 * min(sd, IQR / 1.34) * n^(-1/5). It over-smooths a bimodal arm
// a little, which is acceptable because the points are drawn on top of the violin.
double silvermanBandwidth(const std::vector<double>& sorted, double stddev);

// Horizontal offsets in [-1, 1] for n points, deterministic so screenshots and tests are stable.
QList<double> jitterOffsets(int n);

} // namespace kwb::gui
