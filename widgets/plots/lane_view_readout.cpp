// SPDX-License-Identifier: GPL-3.0-or-later
// The lane view's readout: the values of every lane at the time under the pointer.
#include "models/live_series.h"
#include "plots/lane_view.h"
#include "plots/plot_style.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString formatValue(double v)
{
    const double a = std::abs(v);
    if (a != 0 && (a >= 1e5 || a < 1e-2))
        return QString::number(v, 'g', 4);
    return QString::number(v, 'f', a >= 100 ? 0 : (a >= 10 ? 1 : 2));
}

} // namespace

QString LaneView::Readout::text() const
{
    if (!valid)
        return {};
    QString s = u"t = %1 s"_s.arg(t, 0, 'f', 4);
    s += arm.isEmpty() ? u" · between repetitions"_s : u" · %1 #%2"_s.arg(arm).arg(rep);
    if (latency)
        s += u" · %1%2"_s.arg(formatValue(*latency), unit.isEmpty() ? QString() : u" "_s + unit);
    return s;
}

LaneView::Readout LaneView::readoutAt(double t) const
{
    Readout r;
    r.valid = true;
    r.t = t;
    r.unit = m_series ? m_series->unit() : QString();
    // The repetition running at t: the last one starting at or before t, if it has not ended.
    const auto it = std::upper_bound(m_spanBegin.begin(), m_spanBegin.end(), t);
    if (it != m_spanBegin.begin()) {
        const auto i = static_cast<qsizetype>(std::distance(m_spanBegin.begin(), it)) - 1;
        if (t <= m_spanEnd[i]) {
            const int a = m_spanArm[i];
            r.arm = a >= 0 && a < m_armNames.size() ? m_armNames[a] : tr("warm-up");
            r.rep = m_spanRep[i];
            const ArmTrace* trace = a >= 0 && m_series ? (a < m_series->arms().size() ? &m_series->arms()[a] : nullptr)
                                                       : (m_series ? &m_series->warmups() : nullptr);
            if (trace && r.rep >= 0 && r.rep < trace->value.size())
                r.latency = trace->value[r.rep];
        }
    }
    for (const auto& l : m_lanes) {
        if (!l.shown)
            continue; // the readout reads what the strips show
        const LaneTrace* trace = m_series ? m_series->lane(l.name) : nullptr;
        const qsizetype n = trace ? std::min({l.drawn, trace->t.size(), trace->value.size()}) : 0;
        if (l.sorted && n > 0) {
            const double* b = trace->t.constData();
            const double* at = std::lower_bound(b, b + n, t);
            if (at == b + n)
                --at;
            else if (at != b && std::abs(*(at - 1) - t) <= std::abs(*at - t))
                --at;
            r.lanes.append(LaneValue {l.name, l.unit, *at, trace->value[at - b]});
            continue;
        }
        const auto data = l.graph->data(); // out-of-order lanes are drawn raw
        if (data->isEmpty())
            continue;
        auto at = data->findBegin(t, false);
        if (at == data->constEnd())
            --at;
        else if (at != data->constBegin() && std::abs((at - 1)->key - t) <= std::abs(at->key - t))
            --at;
        r.lanes.append(LaneValue {l.name, l.unit, at->key, at->value});
    }
    return r;
}

void LaneView::hoverAt(std::optional<double> t)
{
    m_hoverT = t;
    m_hover = t ? readoutAt(*t) : Readout {};
    for (auto& l : m_lanes) {
        l.cursor->setVisible(t.has_value() && l.shown);
        if (t) {
            l.cursor->point1->setCoords(*t, 0);
            l.cursor->point2->setCoords(*t, 1);
        }
        QString text;
        for (const auto& v : m_hover.lanes)
            if (v.name == l.name)
                text = formatValue(v.value) + (v.unit.isEmpty() ? QString() : u" "_s + v.unit);
        l.value->setText(text);
        l.value->setVisible(l.shown && !text.isEmpty());
    }
    updateTitle();
    emit hoverChanged(m_hover.text());
}

void LaneView::onMouseMove(QMouseEvent* event)
{
    const QPointF pos = event->position();
    for (QCPAxisRect* r : axisRects()) {
        if (r->rect().contains(pos.toPoint())) {
            hoverAt(r->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()));
            replot(rpQueuedReplot);
            return;
        }
    }
    if (m_hoverT) {
        hoverAt(std::nullopt);
        replot(rpQueuedReplot);
    }
}

} // namespace kwb::gui
