// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plots/lazy_plot.h"

#include <QTimer>
#include <qcustomplot.h>

namespace kwb::gui {

class LiveSeries;

// Every repetition as it arrives, coloured by arm, on a time axis, with each arm's running mean
// and +-1 sd band; the CPU sampler's lane beneath on the same time axis. The plot pulls from the
// LiveSeries on a ~30 Hz timer and redraws once per tick only when something arrived, so a burst
// of samples costs one queued replot, not one per sample.
class LivePlot : public LazyPlot {
    Q_OBJECT
public:
    explicit LivePlot(QWidget* parent = nullptr);

    void setSeries(const LiveSeries* series);
    // Redraw now if the series changed (used after replaying a finished study).
    void refresh();

    // For tests and the page's header: what the plot holds, not what the series holds.
    int pointCount(const QString& arm) const;
    int lanePointCount() const;
    QString laneName() const { return m_laneName; }

    static constexpr int kRefreshIntervalMs = 33;

private:
    struct ArmGraphs {
        QString name;
        QCPGraph* points = nullptr;
        QCPGraph* mean = nullptr;
        QCPGraph* low = nullptr;
        QCPGraph* high = nullptr;
    };
    void drain();
    ArmGraphs& graphsFor(const QString& arm, int index);
    void rescale();

    const LiveSeries* m_series = nullptr;
    quint64 m_drawn = ~quint64 {0};
    QTimer m_timer;
    QCPAxisRect* m_laneRect = nullptr;
    QCPGraph* m_lane = nullptr;
    QCPGraph* m_warmups = nullptr;
    QCPTextElement* m_title = nullptr;
    QList<ArmGraphs> m_arms;
    QString m_laneName;
};

} // namespace kwb::gui
