// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/history_plot.h"

#include "plots/plot_style.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace kwb::gui {

HistoryPlot::HistoryPlot(QWidget* parent)
    : QCustomPlot(parent)
{
    setObjectName(u"historyPlot"_s);
    setMinimumHeight(260);
    m_points = addGraph();
    m_points->setLineStyle(QCPGraph::lsLine);
    m_points->setPen(QPen(armColor(1), 1.5));
    m_points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, armColor(1), Qt::white, 7));
    m_points->setSelectable(QCP::stSingleData);
    m_bars = new QCPErrorBars(xAxis, yAxis);
    m_bars->setDataPlottable(m_points);
    m_bars->setPen(QPen(armColor(1), 1));
    m_bars->setSelectable(QCP::stNone);
    setInteractions(QCP::iSelectPlottables);
    connect(this, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* p, int index, QMouseEvent*) {
        if (p == m_points || p == m_bars) // the error bar lies over its point
            activatePoint(index);
    });
}

void HistoryPlot::setHistory(const ledger::History& history)
{
    m_history = history;
    clearItems();
    m_lines.clear();
    QVector<double> x, y, lo, hi;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const auto& points = history.points;
    const int every = std::max(1, static_cast<int>(points.size()) / 8); // at most ~8 labels
    for (int i = 0; i < static_cast<int>(points.size()); ++i) {
        const auto& p = points[static_cast<size_t>(i)];
        x << i;
        y << p.value;
        lo << p.value - p.ci_lo;
        hi << p.ci_hi - p.value;
        if (i % every == 0)
            ticker->addTick(i, QString::fromStdString(p.commit.empty() ? p.at.substr(0, 10) : p.commit.substr(0, 10)));
    }
    m_points->setData(x, y, true);
    m_bars->setData(lo, hi);
    xAxis->setTicker(ticker);
    xAxis->setLabel(points.empty() || points.front().commit.empty() ? tr("attempt (date)") : tr("attempt (commit)"));
    yAxis->setLabel(QString::fromStdString(history.metric + " (" + history.direction + " is better)"));
    double ymin = 0, ymax = 1;
    if (!points.empty()) {
        ymin = points.front().ci_lo;
        ymax = points.front().ci_hi;
        for (const auto& p : points) {
            ymin = std::min(ymin, p.ci_lo);
            ymax = std::max(ymax, p.ci_hi);
        }
    }
    const double pad = (ymax - ymin) * 0.15 + 1e-12;
    yAxis->setRange(ymin - pad, ymax + pad * 2);
    xAxis->setRange(-0.5, std::max<double>(1, static_cast<double>(points.size()) - 0.5));
    for (const auto& c : history.change_points) {
        const double at = static_cast<double>(c.index) - 0.5;
        m_lines << at;
        const QColor color = verdictColor(c.regression ? u"KILL"_s : u"LICENSE"_s);
        auto* line = new QCPItemStraightLine(this);
        line->point1->setCoords(at, 0);
        line->point2->setCoords(at, 1);
        line->setPen(QPen(color, 1.5, Qt::DashLine));
        auto* label = new QCPItemText(this);
        label->position->setType(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(at, ymax + pad * 1.5);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(u" change %1%2% (%3)"_s.arg(c.delta_pct >= 0 ? u"+"_s : QString())
                           .arg(c.delta_pct, 0, 'f', 1)
                           .arg(c.regression ? tr("worse") : tr("better")));
        label->setColor(color);
    }
    replot();
}

QPointF HistoryPlot::pointPixel(int index) const
{
    const auto& p = m_history.points.at(static_cast<size_t>(index));
    return {xAxis->coordToPixel(index), yAxis->coordToPixel(p.value)};
}

void HistoryPlot::activatePoint(int index)
{
    if (index < 0 || index >= static_cast<int>(m_history.points.size()))
        return;
    const auto& p = m_history.points[static_cast<size_t>(index)];
    emit pointActivated(QString::fromStdString(p.study_path), QString::fromStdString(p.experiment_id));
}

} // namespace kwb::gui
