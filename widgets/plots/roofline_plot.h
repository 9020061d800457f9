// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/roofline.h"

#include <QList>
#include <QPointF>
#include <QStringList>
#include <QWidget>
#include <optional>

class QCustomPlot;
class QCPItemLine;
class QCPItemText;
class QLabel;

namespace kwb {
struct Study;
struct Experiment;
} // namespace kwb

namespace kwb::gui {

// The roofline of an A/B on log-log axes: arithmetic intensity (FLOP/byte) on x, achieved TFLOP/s
// on y; the device's roofs (DRAM, the measured L2 drawn dashed, compute) as labelled lines, the
// ridge, each arm a point with its IQR as error bars, an arrow from baseline to treatment, and a
// caption under the chart with each arm's line and the engine's reasons (a count it could not
// place, a count it derived, a missing roof). Every number and line is the engine's
// (verdict/roofline.h, verdict/roofline_chart.h: the report draws the same); this only places them.
class RooflinePlot : public QWidget {
    Q_OBJECT
public:
    explicit RooflinePlot(QWidget* parent = nullptr);

    // Null clears the chart (no A/B to place) and says so in the caption.
    void setRoofline(const std::optional<Roofline>& roofline);
    // The experiment's A/B against the roofs the study records (study_roofline); null clears.
    void setExperiment(const Study& study, const Experiment* experiment);
    // The same with the experiment's metric diff already computed (the Verdict page has it).
    void setExperiment(const Study& study, const Experiment* experiment, const std::optional<MetricDiff>& lanes);

    // The state, for tests and the pages.
    QCustomPlot* plot() const { return m_plot; }
    QStringList roofLabels() const { return m_roofLabels; }
    // Each roof's polyline in data coordinates (intensity, TFLOP/s), in roofLabels' order.
    QList<QList<QPointF>> roofLines() const { return m_roofLines; }
    // The placed arms, in the rule's order, and where they stand (intensity, TFLOP/s).
    QStringList armNames() const { return m_armNames; }
    QList<QPointF> armPoints() const { return m_armPoints; }
    // The IQR error bars drawn for each placed arm: (x lo, x hi) and (y lo, y hi).
    QList<QPair<QPointF, QPointF>> armSpreads() const { return m_armSpreads; }
    // The arms' points on their measured DRAM traffic (open circles), where the lanes have it.
    QList<QPointF> measuredPoints() const { return m_measuredPoints; }
    bool hasArrow() const { return m_arrow != nullptr; }
    QPointF arrowFrom() const;
    QPointF arrowTo() const;
    std::optional<double> ridge() const { return m_ridge; }
    QString caption() const;

private:
    // After each layout: each roof's label turned along its line (its angle is in pixels).
    void placeRoofLabels();

    QCustomPlot* m_plot;
    QLabel* m_caption;
    QString m_captionText; // the caption's plain text (the label shows it with the arms' colours)
    QStringList m_roofLabels;
    QList<QList<QPointF>> m_roofLines;
    QList<QCPItemText*> m_roofTexts;
    QStringList m_armNames;
    QList<QPointF> m_armPoints;
    QList<QPair<QPointF, QPointF>> m_armSpreads;
    QList<QPointF> m_measuredPoints;
    QCPItemLine* m_arrow = nullptr;
    std::optional<double> m_ridge;
};

} // namespace kwb::gui
