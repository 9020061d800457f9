// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/live_plot.h"

#include "models/live_series.h"
#include "plots/plot_style.h"

#include <algorithm>

namespace kwb::gui {

using namespace Qt::StringLiterals;

LivePlot::LivePlot(QWidget* parent)
    : LazyPlot(parent)
{
    setObjectName(u"livePlot"_s);
    m_title = new QCPTextElement(this, tr("No samples yet"), QFont(font().family(), 11, QFont::Bold));
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, m_title);

    m_laneRect = new QCPAxisRect(this);
    plotLayout()->addElement(2, 0, m_laneRect);
    plotLayout()->setRowStretchFactor(1, 3);
    plotLayout()->setRowStretchFactor(2, 1);
    m_laneRect->setMinimumSize(0, 120);
    // The two rects share the left margin so both time axes line up sample for sample.
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_laneRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), m_laneRect->axis(QCPAxis::atBottom),
        qOverload<const QCPRange&>(&QCPAxis::setRange));

    xAxis->setLabel(tr("time since start (s)"));
    m_laneRect->axis(QCPAxis::atBottom)->setLabel(tr("time since start (s)"));
    m_lane = addGraph(m_laneRect->axis(QCPAxis::atBottom), m_laneRect->axis(QCPAxis::atLeft));
    m_lane->setPen(QPen(QColor(90, 90, 90), 1.2));
    m_lane->setBrush(QColor(90, 90, 90, 40));
    m_lane->removeFromLegend();

    m_warmups = addGraph();
    m_warmups->setLineStyle(QCPGraph::lsNone);
    m_warmups->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(150, 150, 150), 6));
    m_warmups->setName(tr("warm-up (not judged)"));

    // The legend gets a row of its own under the title: inside the axis rect it hid samples.
    legend->setVisible(true);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->insertRow(1);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);

    m_timer.setInterval(kRefreshIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LivePlot::drain);
    m_timer.start();
}

void LivePlot::setSeries(const LiveSeries* series)
{
    m_series = series;
    m_drawn = ~quint64 {0};
    refresh();
}

void LivePlot::refresh()
{
    drain();
}

LivePlot::ArmGraphs& LivePlot::graphsFor(const QString& arm, int index)
{
    for (auto& g : m_arms)
        if (g.name == arm)
            return g;
    const QColor c = armColor(index);
    ArmGraphs g;
    g.name = arm;
    QColor band = c;
    band.setAlpha(45);
    g.low = addGraph();
    g.low->setPen(Qt::NoPen);
    g.low->removeFromLegend();
    // One legend entry per arm; the title says what the line and the band are.
    g.high = addGraph();
    g.high->setPen(Qt::NoPen);
    g.high->setBrush(band);
    g.high->setChannelFillGraph(g.low);
    g.high->removeFromLegend();
    g.mean = addGraph();
    g.mean->setPen(QPen(c, 2));
    g.mean->removeFromLegend();
    g.points = addGraph();
    g.points->setLineStyle(QCPGraph::lsNone);
    g.points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 7));
    g.points->setName(arm);
    m_arms.append(g);
    return m_arms.last();
}

void LivePlot::drain()
{
    if (!m_series || m_series->revision() == m_drawn)
        return;
    m_drawn = m_series->revision();

    // Arms from a previous experiment must not linger when a new run starts.
    for (auto& g : m_arms) {
        if (!m_series->arm(g.name)) {
            for (QCPGraph* graph : {g.points, g.mean, g.low, g.high})
                removeGraph(graph);
            g.name.clear();
        }
    }
    m_arms.removeIf([](const ArmGraphs& g) { return g.name.isEmpty(); });

    QStringList counts;
    const auto& arms = m_series->arms();
    for (int i = 0; i < arms.size(); ++i) {
        const ArmTrace& a = arms[i];
        ArmGraphs& g = graphsFor(a.name, i);
        g.points->setData(a.t, a.value, true);
        g.mean->setData(a.t, a.mean, true);
        g.low->setData(a.t, a.low, true);
        g.high->setData(a.t, a.high, true);
        counts << QStringLiteral("%1 n=%2").arg(a.name).arg(a.value.size());
    }
    m_warmups->setData(m_series->warmups().t, m_series->warmups().value, true);

    const LaneTrace* lane = m_series->lane(u"cpu_util"_s);
    if (!lane && !m_series->lanes().isEmpty())
        lane = &m_series->lanes().first();
    m_laneName = lane ? lane->name : QString();
    m_lane->setData(lane ? lane->t : QList<double> {}, lane ? lane->value : QList<double> {}, true);
    m_laneRect->axis(QCPAxis::atLeft)->setLabel(lane ? axisLabel(lane->name, lane->unit) : tr("no sampler lane"));

    yAxis->setLabel(axisLabel(m_series->metric(), m_series->unit()));
    m_title->setText(m_series->sampleCount() == 0 ? tr("Waiting for the first repetition…")
                                                  : tr("%1 per repetition — %2 (line: running mean, band: ±1 sd)")
                                                        .arg(m_series->metric(), counts.join(u", "_s)));
    rescale();
    replotWhenVisible();
}

void LivePlot::rescale()
{
    double tMax = 1;
    double lo = 0;
    double hi = 0;
    bool any = false;
    auto take = [&](const QList<double>& ts, const QList<double>& vs) {
        for (qsizetype i = 0; i < ts.size(); ++i) {
            tMax = std::max(tMax, ts[i]);
            lo = any ? std::min(lo, vs[i]) : vs[i];
            hi = any ? std::max(hi, vs[i]) : vs[i];
            any = true;
        }
    };
    for (const auto& a : m_series->arms()) {
        take(a.t, a.low);
        take(a.t, a.high);
        take(a.t, a.value);
    }
    take(m_series->warmups().t, m_series->warmups().value);
    for (const auto& l : m_series->lanes())
        for (const double t : l.t)
            tMax = std::max(tMax, t);
    xAxis->setRange(0, tMax * 1.04);
    if (any) {
        const double pad = std::max((hi - lo) * 0.08, std::abs(hi) * 0.01 + 1e-12);
        yAxis->setRange(lo - pad, hi + pad);
    }
    m_lane->rescaleValueAxis(false, false);
    auto* laneY = m_laneRect->axis(QCPAxis::atLeft);
    if (m_laneName == "cpu_util"_L1)
        laneY->setRange(0, 105); // a percentage reads best on its whole scale
    else
        laneY->scaleRange(1.15, laneY->range().center());
}

int LivePlot::pointCount(const QString& arm) const
{
    for (const auto& g : m_arms)
        if (g.name == arm)
            return g.points->dataCount();
    return 0;
}

int LivePlot::lanePointCount() const
{
    return m_lane->dataCount();
}

} // namespace kwb::gui
