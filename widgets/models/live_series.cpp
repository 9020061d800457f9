// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/live_series.h"

#include <QDateTime>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace kwb::gui {

void LiveSeries::clear()
{
    m_arms.clear();
    m_warmups = ArmTrace {};
    m_lanes.clear();
    m_metric.clear();
    m_unit.clear();
    ++m_revision;
}

void LiveSeries::setPlan(const QStringList& arms, const QString& metric, const QString& unit)
{
    clear();
    for (const auto& name : arms)
        armTrace(name);
    m_metric = metric;
    m_unit = unit;
}

void LiveSeries::addSample(const QString& arm, double t_s, double value, bool warmup)
{
    ArmTrace& trace = warmup ? m_warmups : armTrace(arm);
    trace.t.append(t_s);
    trace.value.append(value);
    const auto n = static_cast<double>(trace.value.size());
    const double d = value - trace.acc_mean;
    trace.acc_mean += d / n;
    trace.acc_m2 += d * (value - trace.acc_mean);
    const double sd = n > 1 ? std::sqrt(trace.acc_m2 / (n - 1)) : 0.0;
    trace.mean.append(trace.acc_mean);
    trace.low.append(trace.acc_mean - sd);
    trace.high.append(trace.acc_mean + sd);
    ++m_revision;
}

void LiveSeries::addLaneValue(const QString& lane, const QString& unit, double t_s, double value)
{
    auto it = std::find_if(m_lanes.begin(), m_lanes.end(), [&](const LaneTrace& l) { return l.name == lane; });
    if (it == m_lanes.end()) {
        m_lanes.append(LaneTrace {lane, unit, {}, {}});
        it = std::prev(m_lanes.end());
    }
    it->t.append(t_s);
    it->value.append(value);
    ++m_revision;
}

void LiveSeries::replay(const Experiment& experiment, const std::string& unit)
{
    QStringList arms;
    for (const auto& a : experiment.arms)
        arms << QString::fromStdString(a.name);
    setPlan(arms, QString::fromStdString(experiment.metric), QString::fromStdString(unit));
    const auto times = sampleTimes(experiment);
    std::vector<size_t> order(experiment.samples.size());
    std::iota(order.begin(), order.end(), size_t {0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return times[a] < times[b]; });
    for (const size_t i : order) {
        const Sample& s = experiment.samples[i];
        const auto v = s.metrics.find(experiment.metric);
        if (v == s.metrics.end() || s.discarded)
            continue;
        addSample(QString::fromStdString(s.arm), times[i], v->second, s.warmup);
    }
    for (const auto& lane : experiment.lanes)
        for (size_t i = 0; i < lane.t_s.size(); ++i)
            addLaneValue(
                QString::fromStdString(lane.name), QString::fromStdString(lane.unit), lane.t_s[i], lane.values[i]);
}

const ArmTrace* LiveSeries::arm(const QString& name) const
{
    for (const auto& a : m_arms)
        if (a.name == name)
            return &a;
    return nullptr;
}

const LaneTrace* LiveSeries::lane(const QString& name) const
{
    for (const auto& l : m_lanes)
        if (l.name == name)
            return &l;
    return nullptr;
}

int LiveSeries::sampleCount() const
{
    qsizetype n = 0;
    for (const auto& a : m_arms)
        n += a.value.size();
    return static_cast<int>(n);
}

ArmTrace& LiveSeries::armTrace(const QString& name)
{
    for (auto& a : m_arms)
        if (a.name == name)
            return a;
    m_arms.append(ArmTrace {});
    m_arms.last().name = name;
    return m_arms.last();
}

std::vector<double> sampleTimes(const Experiment& experiment)
{
    const auto& samples = experiment.samples;
    std::vector<double> out(samples.size(), 0.0);
    std::vector<QDateTime> starts;
    for (const auto& s : samples) {
        const auto at = QDateTime::fromString(QString::fromStdString(s.started_at), Qt::ISODateWithMs);
        if (!at.isValid())
            break;
        starts.push_back(at);
    }
    if (!samples.empty() && starts.size() == samples.size()) {
        const QDateTime first = *std::min_element(starts.begin(), starts.end());
        for (size_t i = 0; i < samples.size(); ++i)
            out[i] = static_cast<double>(first.msecsTo(starts[i])) / 1000.0 + samples[i].duration_s;
        return out;
    }
    // No clock: lay the repetitions end to end, warm-ups first, then in run order.
    std::vector<size_t> order(samples.size());
    std::iota(order.begin(), order.end(), size_t {0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (samples[a].warmup != samples[b].warmup)
            return samples[a].warmup;
        return samples[a].position < samples[b].position;
    });
    double t = 0;
    for (const size_t i : order) {
        t += samples[i].duration_s;
        out[i] = t;
    }
    return out;
}

} // namespace kwb::gui
