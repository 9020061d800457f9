// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ledger/ledger_history.h"

#include <QString>
#include <qcustomplot.h>

namespace kwb::gui {

// One benchmark's history on one device model (ledger/ledger_history.h): each point its
// attempt's measured mean with the 95% CI as an error bar, in order, labelled by commit or date;
// each change point the engine found (ledger/change_points.h) a dashed vertical line before the
// point it starts at, labelled with its delta%. Clicking a point asks for its study.
class HistoryPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit HistoryPlot(QWidget* parent = nullptr);

    void setHistory(const ledger::History& history);
    const ledger::History& history() const { return m_history; }

    // For tests: the x of each change point's line, and the pixel position of point `index`.
    QList<double> changePointLines() const { return m_lines; }
    QPointF pointPixel(int index) const;
    // Point `index` activated (as by a click): emits pointActivated with its study.
    void activatePoint(int index);

signals:
    void pointActivated(const QString& studyPath, const QString& experimentId);

private:
    ledger::History m_history;
    QCPGraph* m_points = nullptr;
    QCPErrorBars* m_bars = nullptr;
    QList<double> m_lines;
};

} // namespace kwb::gui
