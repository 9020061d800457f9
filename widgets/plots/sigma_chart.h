// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plots/lazy_plot.h"

#include <QJsonObject>
#include <qcustomplot.h>

namespace kwb::gui {

// The delta% with its 95% CI as an error bar, drawn against the kill and license thresholds and
// the shaded noise band (+- noise_k x sigma%). Every number is the verdict engine's (the verdict
// JSON); this chart only places them, so it can never disagree with the verdict it illustrates.
class SigmaChart : public LazyPlot {
    Q_OBJECT
public:
    explicit SigmaChart(QWidget* parent = nullptr);

    // `verdict` is the sample verdict object (kwb verdict --json shape); an empty object clears.
    void setVerdict(const QJsonObject& verdict);
    bool hasDelta() const { return m_hasDelta; }
    double shownDelta() const { return m_delta; }

private:
    void addVerticalLine(double x, const QColor& color, const QString& label, Qt::Alignment side);
    // After each layout: the delta's label goes where it crosses no threshold line and stays
    // inside the chart (right of the point, left, centred; then on two lines), in pixels.
    void placeDeltaLabel();

    QCPItemText* m_deltaLabel = nullptr;
    QString m_labelOneLine;
    QString m_labelTwoLines;
    QList<double> m_thresholds; // x of the kill and license lines
    bool m_hasDelta = false;
    double m_delta = 0;
};

} // namespace kwb::gui
