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
    // After each layout: the x range grows just enough that every mean label (right of its
    // violin) ends inside the plot, so a narrow window never cuts one off.
    void fitMeanLabels();

    QList<QCPItemText*> m_meanLabels;
    double m_baseUpper = 0; // the x range's upper end before any label needed more
    QHash<QString, QCPGraph*> m_points;
    QHash<QString, QCPGraph*> m_throttled;
};

} // namespace kwb::gui
