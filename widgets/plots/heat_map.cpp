// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/heat_map.h"

#include "plots/plot_style.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString signedPct(double v)
{
    return (v > 0 ? u"+"_s : QString()) + QString::number(v, 'f', 1) + u" %"_s;
}

QString cellLabel(const GridCellView& c)
{
    if (c.baseline)
        return QObject::tr("baseline cell\nΔ 0 (reference)");
    // Spread-out runs: which device (and Slurm node) ran the cell, on its last line.
    const QString ranOn = c.ranOn.isEmpty() ? QString() : u'\n' + c.ranOn;
    if (!c.deltaPct)
        return QObject::tr("%1\n%2").arg(c.experimentId, c.status.isEmpty() ? QObject::tr("not run") : c.status)
            + ranOn;
    QString text = u"Δ "_s + signedPct(*c.deltaPct);
    if (c.ciLow && c.ciHigh)
        text += QObject::tr("\nCI [%1, %2]").arg(*c.ciLow, 0, 'f', 1).arg(*c.ciHigh, 0, 'f', 1);
    text += c.sigmaPct ? QObject::tr("\nσ %1 %  n %2/%3").arg(*c.sigmaPct, 0, 'f', 2).arg(c.nBaseline).arg(c.nTreatment)
                       : QObject::tr("\nn %1/%2").arg(c.nBaseline).arg(c.nTreatment);
    if (!c.verdict.isEmpty())
        text += u'\n' + c.verdict;
    return text + ranOn;
}

} // namespace

HeatMap::HeatMap(QWidget* parent)
    : LazyPlot(parent)
{
    setObjectName(u"heatMap"_s);
    setMinimumHeight(220);
    m_map = new QCPColorMap(xAxis, yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false); // each cell spans its whole square around its level, labels at its centre
    m_scale = new QCPColorScale(this);
    plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->axis()->setLabel(tr("delta % (positive = better)"));
    m_map->setColorScale(m_scale);
    QCPColorGradient gradient;
    gradient.setColorStopAt(0.0, verdictColor(u"KILL"_s));
    gradient.setColorStopAt(0.5, QColor(250, 250, 250));
    gradient.setColorStopAt(1.0, verdictColor(u"LICENSE"_s));
    m_map->setGradient(gradient);
    xAxis->grid()->setVisible(false);
    yAxis->grid()->setVisible(false);
    yAxis->setRangeReversed(true); // level 0 (the baseline) at the top left, as the grid is read
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
}

void HeatMap::setGrid(const GridView& view)
{
    for (auto* l : std::as_const(m_labels))
        removeItem(l);
    m_labels.clear();
    m_texts.clear();
    const int rows = static_cast<int>(view.rowLevels.size());
    const int cols = static_cast<int>(view.colLevels.size());
    m_map->setVisible(rows > 0 && cols > 0);
    if (rows == 0 || cols == 0) {
        replotWhenVisible();
        return;
    }
    m_map->data()->setSize(cols, rows);
    m_map->data()->setRange(QCPRange(0, cols - 1), QCPRange(0, rows - 1));
    double extent = 1;
    for (const auto& c : view.cells)
        if (c.deltaPct)
            extent = std::max(extent, std::fabs(*c.deltaPct));
    for (const auto& c : view.cells) {
        // An unjudged cell draws as "no change" white; its text says why.
        m_map->data()->setCell(c.col, c.row, c.deltaPct.value_or(0));
        const QString text = cellLabel(c);
        m_texts.insert(c.row * 16 + c.col, text);
        auto* label = new QCPItemText(this);
        label->position->setCoords(c.col, c.row);
        label->setPositionAlignment(Qt::AlignCenter);
        label->setTextAlignment(Qt::AlignCenter);
        label->setText(text);
        label->setFont(QFont(font().family(), 8, c.baseline ? QFont::Normal : QFont::Bold));
        label->setColor(Qt::black);
        label->setBrush(QColor(255, 255, 255, 190)); // readable on the strongest red or green
        label->setPadding(QMargins(3, 2, 3, 2));
        label->setClipToAxisRect(true);
        m_labels << label;
    }
    m_map->setDataRange(QCPRange(-extent, extent));

    QSharedPointer<QCPAxisTickerText> xt(new QCPAxisTickerText);
    for (int c = 0; c < cols; ++c)
        xt->addTick(c, view.colLevels[c]);
    QSharedPointer<QCPAxisTickerText> yt(new QCPAxisTickerText);
    for (int r = 0; r < rows; ++r)
        yt->addTick(r, view.rowLevels[r]);
    xAxis->setTicker(xt);
    yAxis->setTicker(yt);
    xAxis->setLabel(view.colVariable);
    yAxis->setLabel(view.rowVariable);
    xAxis->setRange(-0.5, cols - 0.5);
    yAxis->setRange(-0.5, rows - 0.5);
    replotWhenVisible();
}

QString HeatMap::cellText(int row, int col) const
{
    return m_texts.value(row * 16 + col);
}

} // namespace kwb::gui
