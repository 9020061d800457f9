// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/lane_decimator.h"

#include <cmath>
#include <limits>

namespace kwb::gui {

void LaneDecimator::reset(QCPGraphDataContainer& out, double bucket)
{
    out.clear();
    m_bucket = bucket;
    m_open = false;
}

void LaneDecimator::emitOpen(QVector<QCPGraphData>& add) const
{
    if (!m_open)
        return;
    if (m_min.key == m_max.key) {
        add.append(m_min);
        return;
    }
    add.append(m_min.key < m_max.key ? m_min : m_max);
    add.append(m_min.key < m_max.key ? m_max : m_min);
}

void LaneDecimator::append(QCPGraphDataContainer& out, const double* t, const double* value, qsizetype n)
{
    if (n <= 0)
        return;
    QVector<QCPGraphData> add;
    if (m_bucket <= 0) {
        add.reserve(n);
        for (qsizetype i = 0; i < n; ++i)
            add.append(QCPGraphData(t[i], value[i]));
        out.add(add, true);
        return;
    }
    // The open bucket's points are redrawn from its updated extremes.
    if (m_open)
        out.removeAfter(std::nextafter(std::min(m_min.key, m_max.key), -std::numeric_limits<double>::infinity()));
    for (qsizetype i = 0; i < n; ++i) {
        const double index = std::floor(t[i] / m_bucket);
        if (!m_open || index != m_openIndex) {
            emitOpen(add);
            m_open = true;
            m_openIndex = index;
            m_min = m_max = QCPGraphData(t[i], value[i]);
            continue;
        }
        if (value[i] < m_min.value)
            m_min = QCPGraphData(t[i], value[i]);
        if (value[i] > m_max.value)
            m_max = QCPGraphData(t[i], value[i]);
    }
    emitOpen(add);
    out.add(add, true);
}

} // namespace kwb::gui
