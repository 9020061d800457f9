// SPDX-License-Identifier: GPL-3.0-or-later
// The lane view's time axis: following the newest sample, pausing, the window's width, a range the user chose, and
// every lane kept on the one time range.
#include "models/live_series.h"
#include "plots/lane_view.h"
#include "plots/plot_style.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kwb::gui {

using namespace Qt::StringLiterals;

void LaneView::setPaused(bool paused)
{
    if (paused == m_paused)
        return;
    m_paused = paused;
    emit pausedChanged(paused);
    updateTitle();
    if (!paused)
        drain();
    replotWhenVisible();
}

void LaneView::setFollowing(bool following)
{
    if (following == m_following)
        return;
    m_following = following;
    m_wholeRun = false;
    emit followingChanged(following);
    if (following)
        applyFollow();
    updateTitle();
    replotWhenVisible();
}

void LaneView::setWindowSeconds(double seconds)
{
    m_window = std::max(0.01, seconds);
    if (m_following)
        applyFollow();
    replotWhenVisible();
}

void LaneView::setTimeRange(double lo, double hi)
{
    setFollowing(false);
    m_settingRange = true;
    m_latencyRect->axis(QCPAxis::atBottom)->setRange(lo, hi);
    m_settingRange = false;
    syncTimeRange(QCPRange(lo, hi));
    fitLanes();
    rescaleValues();
    replotWhenVisible();
}

void LaneView::showAll()
{
    drain();
    const double end = newestTime();
    setTimeRange(0, std::max(end * 1.01, 1e-3));
    m_wholeRun = true;
    updateTitle();
    replotWhenVisible();
}

QCPRange LaneView::timeRange() const
{
    return m_latencyRect->axis(QCPAxis::atBottom)->range();
}

void LaneView::syncTimeRange(const QCPRange& range)
{
    if (m_syncing)
        return;
    m_syncing = true;
    // A change the view did not make itself is the user's zoom or drag: stop following.
    if (!m_settingRange) {
        m_wholeRun = false;
        if (m_following) {
            m_following = false;
            emit followingChanged(false);
        }
        updateTitle();
    }
    m_latencyRect->axis(QCPAxis::atBottom)->setRange(range);
    for (auto& l : m_lanes)
        l.rect->axis(QCPAxis::atBottom)->setRange(range);
    m_syncing = false;
    if (!m_settingRange) {
        fitLanes();
        rescaleValues();
    }
}

void LaneView::applyFollow()
{
    const double end = newestTime();
    const double lo = std::max(0.0, end - m_window);
    // A run shorter than the window is shown whole, with a little room after its last reading.
    const double hi = std::max(end + (end - lo) * 0.02, lo + 1e-3);
    m_settingRange = true;
    syncTimeRange(QCPRange(lo, hi));
    m_settingRange = false;
    fitLanes();
}

} // namespace kwb::gui
