// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>

namespace kwb::gui {

// Reduces one lane's time-sorted readings, as they arrive, to the smallest and the largest value
// of each time bucket (both at their own times, in time order), so a strip draws about two points
// per pixel column whatever the data rate and a one-sample spike or dip still shows. A bucket of
// 0 copies the readings unchanged (a zoomed-in view with fewer readings than pixels).
// The newest bucket stays open: its one or two points are replaced as readings join it.
class LaneDecimator {
public:
    // Starts over with this bucket width (seconds; 0: raw), emptying `out`.
    void reset(QCPGraphDataContainer& out, double bucket);
    // Adds n readings, sorted and not older than those added before.
    void append(QCPGraphDataContainer& out, const double* t, const double* value, qsizetype n);
    double bucket() const { return m_bucket; }

private:
    void emitOpen(QVector<QCPGraphData>& add) const;

    double m_bucket = 0;
    bool m_open = false;
    double m_openIndex = 0; // floor(t / bucket) of the open bucket
    QCPGraphData m_min, m_max; // of the open bucket
};

} // namespace kwb::gui
