// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/live_series.h"

#include <QDateTime>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace kwb::gui {

void LiveSeries::clear()
{
    m_arms.clear();
    m_warmups = ArmTrace {};
    m_lanes.clear();
    m_spans.clear();
    m_alignment = 0;
    m_alignedByEnd = false;
    m_metric.clear();
    m_unit.clear();
    ++m_revision;
    ++m_generation;
}

void LiveSeries::setPlan(const QStringList& arms, const QString& metric, const QString& unit)
{
    clear();
    for (const auto& name : arms)
        armTrace(name);
    m_metric = metric;
    m_unit = unit;
}

qint64 LiveSeries::nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void LiveSeries::addSample(const QString& arm, double t_s, double value, bool warmup, double duration_s)
{
    ArmTrace& trace = warmup ? m_warmups : armTrace(arm);
    if (duration_s > 0) {
        int index = -1;
        if (!warmup)
            index = static_cast<int>(&trace - m_arms.data());
        m_spans.append(RepSpan {t_s - duration_s, t_s, index, static_cast<int>(trace.t.size())});
    }
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

void LiveSeries::addLaneValue(const QString& lane, const QString& unit, double t_s, double value, qint64 arrivedNs)
{
    auto it = std::find_if(m_lanes.begin(), m_lanes.end(), [&](const LaneTrace& l) { return l.name == lane; });
    if (it == m_lanes.end()) {
        m_lanes.append(LaneTrace {lane, unit, {}, {}, {}});
        it = std::prev(m_lanes.end());
    }
    it->t.append(t_s);
    it->value.append(value);
    it->arrivedNs.append(arrivedNs < 0 ? nowNs() : arrivedNs);
    ++m_revision;
}

void LiveSeries::replay(const Experiment& experiment, const std::string& unit)
{
    QStringList arms;
    for (const auto& a : experiment.arms)
        arms << QString::fromStdString(a.name);
    setPlan(arms, QString::fromStdString(experiment.metric), QString::fromStdString(unit));
    // Each repetition's end on the lanes' clock. Studies that store every start there (`t_s`)
    // line up exactly; older ones only have wall-clock starts, which count from the first
    // repetition, not from the experiment's start: their last repetition is aligned with the
    // lanes' last reading (the samplers stop right after it), which is accurate to a poll period.
    const auto& samples = experiment.samples;
    std::vector<double> times(samples.size(), 0.0);
    const bool onLaneClock = !samples.empty()
        && std::all_of(samples.begin(), samples.end(), [](const Sample& s) { return s.t_s.has_value(); });
    if (onLaneClock) {
        for (size_t i = 0; i < samples.size(); ++i)
            times[i] = *samples[i].t_s + samples[i].duration_s;
    } else {
        times = sampleTimes(experiment);
        double laneEnd = 0;
        bool anyLane = false;
        for (const auto& lane : experiment.lanes)
            if (!lane.t_s.empty()) {
                laneEnd = std::max(laneEnd, lane.t_s.back());
                anyLane = true;
            }
        const double sampleEnd = times.empty() ? 0.0 : *std::max_element(times.begin(), times.end());
        if (anyLane && laneEnd > sampleEnd) {
            for (double& t : times)
                t += laneEnd - sampleEnd;
            m_alignment = laneEnd - sampleEnd;
            m_alignedByEnd = true;
        }
    }
    std::vector<size_t> order(samples.size());
    std::iota(order.begin(), order.end(), size_t {0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return times[a] < times[b]; });
    for (const size_t i : order) {
        const Sample& s = samples[i];
        const auto v = s.metrics.find(experiment.metric);
        if (v == s.metrics.end() || s.discarded)
            continue;
        addSample(QString::fromStdString(s.arm), times[i], v->second, s.warmup, s.duration_s);
    }
    for (const auto& lane : experiment.lanes)
        for (size_t i = 0; i < lane.t_s.size() && i < lane.values.size(); ++i)
            addLaneValue(
                QString::fromStdString(lane.name), QString::fromStdString(lane.unit), lane.t_s[i], lane.values[i], 0);
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
