// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/distribution_stats.h"
#include "plots/lazy_plot.h"

#include <qcustomplot.h>

namespace kwb::gui {

// The arms side by side: a violin (kernel density) with a Tukey box inside it and every
// repetition as a jittered point, so a bimodal arm or a single outlier is visible at a glance.
class DistributionPlot : public LazyPlot {
    Q_OBJECT
public:
    explicit DistributionPlot(QWidget* parent = nullptr);

    void setDistributions(const QList<ArmDistribution>& arms, const QString& metric, const QString& unit);
    // Every repetition drawn for the arm, throttled ones included; throttledCount: those alone.
    int pointCount(const QString& arm) const;
    int throttledCount(const QString& arm) const;

private:
    QHash<QString, QCPGraph*> m_points;
    QHash<QString, QCPGraph*> m_throttled;
};

} // namespace kwb::gui
