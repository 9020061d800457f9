// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plots/lazy_plot.h"

#include <QJsonObject>
#include <qcustomplot.h>

namespace kwb::gui {

// The delta% with its 95% CI as an error bar, drawn against the kill and license lines and the
// shaded noise band (+- noise_k x sigma%). Every number is the verdict engine's (the verdict JSON,
// and the lines from verdict/delta_lines.h as the report draws them); this chart only places them,
// so it can never disagree with the verdict it illustrates.
class SigmaChart : public LazyPlot {
    Q_OBJECT
public:
    explicit SigmaChart(QWidget* parent = nullptr);

    // `verdict` is the sample verdict object (kwb verdict --json shape); an empty object clears.
    void setVerdict(const QJsonObject& verdict);
    bool hasDelta() const { return m_hasDelta; }
    double shownDelta() const { return m_delta; }

    // The labels, for tests: each one's box in pixels (empty when the chart has none).
    QRectF deltaLabelRect() const { return labelRect(m_deltaLabel); }
    QRectF noiseLabelRect() const { return labelRect(m_noiseLabel); }
    QList<QRectF> thresholdLabelRects() const;
    // The pixel x of the kill and license lines (empty without a profile that has them).
    QList<double> thresholdPixels() const;
    // Where the kill and license lines stand (delta%) and what their labels say.
    QList<double> thresholdValues() const { return m_thresholds; }
    QStringList thresholdTexts() const;

private:
    QCPItemText* addVerticalLine(double x, const QColor& color, const QString& label, Qt::Alignment side);
    static QRectF labelRect(const QCPItemText* label);
    // After each layout: the range widens until the threshold labels fit (no clipping); the
    // noise and delta labels go where they cross no threshold line and stay inside the chart.
    // The rule is the engine's (util/chart_labels.h), which the report's delta chart follows too.
    void placeLabels();

    QCPItemText* m_deltaLabel = nullptr;
    QCPItemText* m_noiseLabel = nullptr;
    QList<QCPItemText*> m_thresholdLabels; // kill, license
    QString m_labelOneLine;
    QString m_labelTwoLines;
    QList<double> m_thresholds; // x of the kill and license lines
    QCPRange m_baseRange; // what the data needs, before the threshold labels widen it
    bool m_hasDelta = false;
    double m_delta = 0;
};

} // namespace kwb::gui
