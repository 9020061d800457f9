// SPDX-License-Identifier: GPL-3.0-or-later
// The lane view's value axes: each lane fitted to what is in view, its label and top reading placed clear of the data.
#include "models/live_series.h"
#include "plots/lane_view.h"
#include "plots/plot_style.h"
#include "sampling/lane_selection.h"

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
        if (!l.shown)
            continue; // fitted from the series when shown
        else if (const LaneTrace* trace = m_series->lane(l.name))
            fitLane(l, *trace);
}

// Gives the strip's graph what the visible span needs: raw readings where they are fewer than
// kRawPerPixel per pixel column, else the min and max per bucket of about one column (a power of
// two in seconds, so panning and small resizes keep the buckets). Only readings that arrived since
// the last frame are reduced; a new bucket width or a span outside what the graph holds rebuilds
// it from the series once. The graph holds one span before the visible one (and one after when
// zoomed), so a frame's cost follows the pixels, not the data rate.
void LaneView::fitLane(Lane& lane, const LaneTrace& trace)
{
    QCPGraphDataContainer& data = *lane.graph->data();
    const qsizetype n = std::min({lane.drawn, trace.t.size(), trace.value.size()});
    if (!lane.sorted) {
        if (lane.decimator.bucket() != 0 || lane.fresh || lane.fed > n) {
            lane.decimator.reset(data, 0);
            lane.fed = 0;
            lane.fresh = false;
        }
        QVector<QCPGraphData> add;
        for (qsizetype i = lane.fed; i < n; ++i)
            add.append(QCPGraphData(trace.t[i], trace.value[i]));
        data.add(add, false);
        lane.fed = n;
        lane.graph->setAntialiased(true);
        return;
    }
    const QCPRange r = timeRange();
    const double span = std::max(r.size(), 1e-9);
    lane.fittedWidth = lane.rect->width();
    const double px = std::max(lane.rect->width(), 64);
    const double* t = trace.t.constData();
    const double* v = trace.value.constData();
    const qsizetype visible = std::upper_bound(t, t + n, r.upper) - std::lower_bound(t, t + n, r.lower);
    // A little hysteresis so a span near the threshold does not flip the strip every frame.
    const bool wasRaw = lane.decimator.bucket() == 0;
    const bool raw = visible <= kRawPerPixel * px * (wasRaw || lane.fresh ? 1.0 : 0.75);
    double bucket = 0;
    if (!raw) {
        const double width = (m_following ? m_window * 1.02 : span) / px;
        bucket = std::exp2(std::ceil(std::log2(width)));
    }
    const bool rebuild = lane.fresh || bucket != lane.decimator.bucket() || r.lower < lane.coveredLo
        || r.upper > lane.coveredHi || lane.fed > n;
    if (rebuild) {
        lane.coveredLo = r.lower - span;
        lane.coveredHi = m_following ? std::numeric_limits<double>::infinity() : r.upper + span;
        lane.decimator.reset(data, bucket);
        const qsizetype from = std::lower_bound(t, t + n, lane.coveredLo) - t;
        const qsizetype to = std::upper_bound(t, t + n, lane.coveredHi) - t;
        lane.decimator.append(data, t + from, v + from, to - from);
        lane.fed = n;
        lane.fresh = false;
        lane.graph->setAntialiased(raw); // dense min/max columns: antialiasing costs, shows nothing
        return;
    }
    const qsizetype to = std::upper_bound(t + lane.fed, t + n, lane.coveredHi) - t;
    lane.decimator.append(data, t + lane.fed, v + lane.fed, to - lane.fed);
    lane.fed = n;
    // Following: drop what scrolled a span out of view (amortised: QCustomPlot keeps the room).
    if (m_following && lane.coveredLo < r.lower - 2 * span) {
        lane.coveredLo = r.lower - span;
        data.removeBefore(lane.coveredLo);
    }
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
        // As drawn: the graph is clipped to its strip (a % reading above 100 meets the top edge).
        return std::max<double>(l.rect->top(), l.rect->axis(QCPAxis::atLeft)->coordToPixel(r.upper));
    }
    return std::nullopt;
}

void LaneView::rescaleValues()
{
    const QCPRange keys = timeRange();
    for (auto& l : m_lanes) {
        if (!l.shown)
            continue;
        auto* y = l.rect->axis(QCPAxis::atLeft);
        l.scaledHeight = l.rect->height();
        // A percentage reads on its whole scale, never stretched past 100 by a reading that
        // cannot be one (the engine drops those; a recorded study may still hold some).
        if (kwb::is_percent_unit(l.unit.toStdString())) {
            y->setRange(kwb::kPercentAxisLow, kwb::kPercentAxisHigh);
            continue;
        }
        bool found = false;
        const QCPRange r = l.graph->getValueRange(found, QCP::sdBoth, keys);
        if (!found)
            continue;
        // The strip's name sits above the plotting area, so the readings may use all of it.
        const double span = r.size();
        const double pad = span > 0 ? span * 0.12 : std::max(std::abs(r.upper) * 0.05, 0.5);
        y->setRange(r.lower - pad, r.upper + pad);
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
        state = tr("the whole recording (wheel zooms)");
    else
        state = tr("zoomed (Follow resumes the rolling window)");
    const auto shown = std::count_if(m_lanes.cbegin(), m_lanes.cend(), [](const Lane& l) { return l.shown; });
    const QString lanes = shown == m_lanes.size() ? tr("%1 lanes").arg(m_lanes.size())
                                                  : tr("%1 of %2 lanes").arg(shown).arg(m_lanes.size());
    // The hover readout is the page's (beside the buttons): here it pushed the title under the legend.
    m_titleText = tr("%1 · %2 repetitions · %3").arg(lanes).arg(m_series ? m_series->sampleCount() : 0).arg(state);
    placeTitle();
}

} // namespace kwb::gui
