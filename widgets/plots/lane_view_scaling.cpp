// SPDX-License-Identifier: GPL-3.0-or-later
// The lane view's value axes: each lane fitted to what is in view, its label and top reading placed clear of the data.
#include "plots/lane_view.h"

#include "models/live_series.h"
#include "plots/plot_style.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kwb::gui {

using namespace Qt::StringLiterals;

void LaneView::fitLanes()
{
    if (!m_series)
        return;
    for (auto& l : m_lanes)
        if (const LaneTrace* trace = m_series->lane(l.name))
            fitLane(l, *trace);
}

void LaneView::fitLanes()
{
    if (!m_series)
        return;
    for (auto& l : m_lanes)
        if (const LaneTrace* trace = m_series->lane(l.name))
            fitLane(l, *trace);
}

QRectF LaneView::laneLabelRect(const QString& lane) const
{
    for (const auto& l : m_lanes)
        if (l.name == lane)
            return QRectF(l.label->topLeft->pixelPosition(), l.label->bottomRight->pixelPosition()).normalized();
    return {};
}

std::optional<double> LaneView::laneTopReadingPixel(const QString& lane) const
{
    for (const auto& l : m_lanes) {
        if (l.name != lane)
            continue;
        bool found = false;
        const QCPRange r = l.graph->getValueRange(found, QCP::sdBoth, timeRange());
        if (!found)
            return std::nullopt;
        return l.rect->axis(QCPAxis::atLeft)->coordToPixel(r.upper);
    }
    return std::nullopt;
}

void LaneView::rescaleValues()
{
    const QCPRange keys = timeRange();
    for (auto& l : m_lanes) {
        bool found = false;
        QCPRange r = l.graph->getValueRange(found, QCP::sdBoth, keys);
        auto* y = l.rect->axis(QCPAxis::atLeft);
        l.scaledHeight = l.rect->height();
        if (!found)
            continue;
        double lo = 0;
        double hi = 0;
        if (l.unit == "%"_L1) { // a percentage reads best on its whole scale
            hi = std::max(105.0, r.upper * 1.05);
        } else {
            const double span = r.size();
            const double pad = span > 0 ? span * 0.12 : std::max(std::abs(r.upper) * 0.05, 0.5);
            lo = r.lower - pad;
            hi = r.upper + pad;
        }
        // The strip's name sits in its top-left corner on a box: the readings stay below it, or
        // it hides the first seconds of the line.
        const double labelPx = QFontMetrics(l.label->font()).height() + 3;
        const double strip = l.rect->height() > 0 ? l.rect->height() : 60.0;
        const double headroom = std::min(0.5, labelPx / strip);
        y->setRange(lo, lo + (hi - lo) / (1 - headroom));
    }
    bool found = false;
    QCPRange all;
    for (auto* g : m_latency) {
        bool f = false;
        const QCPRange r = g->getValueRange(f, QCP::sdBoth, keys);
        if (f) {
            all = found ? QCPRange(std::min(all.lower, r.lower), std::max(all.upper, r.upper)) : r;
            found = true;
        }
    }
    if (found) {
        const double pad = std::max(all.size() * 0.1, std::abs(all.upper) * 0.01 + 1e-12);
        m_latencyRect->axis(QCPAxis::atLeft)->setRange(all.lower - pad, all.upper + pad);
    }
}

void LaneView::updateTitle()
{
    QString state;
    if (m_paused)
        state = tr("paused (readings keep arriving)");
    else if (m_following)
        state = tr("following the last %1 s").arg(m_window);
    else if (m_wholeRun)
        state = tr("the whole recording (drag or wheel to zoom)");
    else
        state = tr("zoomed (Follow resumes the rolling window)");
    QString text = tr("%1 lanes · %2 repetitions · %3")
                       .arg(m_lanes.size())
                       .arg(m_series ? m_series->sampleCount() : 0)
                       .arg(state);
    if (m_hover.valid)
        text = m_hover.text() + u"   —   "_s + text;
    m_title->setText(text);
}

} // namespace kwb::gui
