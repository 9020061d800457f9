// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace kwb::gui {

// Every repetition of one arm on a time axis, with the arm's running mean and the +-1 standard
// deviation band after each repetition (what the engineer watches converge).
struct ArmTrace {
    QString name;
    QList<double> t; // seconds since the run started
    QList<double> value;
    QList<double> mean; // running mean after each point
    QList<double> low; // running mean - sd (equal to mean while n < 2)
    QList<double> high; // running mean + sd
    // Welford accumulators: the running band costs O(1) per sample however long the run.
    double acc_mean = 0;
    double acc_m2 = 0;
};

// One sampler lane (cpu_util, rss_mib, ...).
struct LaneTrace {
    QString name;
    QString unit;
    QList<double> t;
    QList<double> value;
    // When each point arrived (LiveSeries::nowNs(), live points only; 0 for replayed ones): the
    // lane view measures the time from a metric event's arrival to its first frame on screen.
    QList<qint64> arrivedNs;
};

// One repetition's interval on the time axis: which arm ran from `begin` to `end`.
struct RepSpan {
    double begin = 0;
    double end = 0;
    int arm = -1; // index into LiveSeries::arms(); -1 for a warm-up
    int rep = 0;
};

// The data behind the live plot, fed sample by sample by the run controller (or all at once by
// replaying a finished experiment). Appending only bumps a revision number: the plot polls it on
// a display-rate timer and redraws once for however many samples arrived, never per sample.
class LiveSeries {
public:
    void clear();
    void setPlan(const QStringList& arms, const QString& metric, const QString& unit);
    // `t_s` is when the repetition ended; `duration_s` (when known) spans it back to its start,
    // drawn as the arm's band behind the lanes.
    void addSample(const QString& arm, double t_s, double value, bool warmup, double duration_s = 0);
    void addLaneValue(const QString& lane, const QString& unit, double t_s, double value, qint64 arrivedNs = -1);
    // Rebuilds the traces from the samples and lanes a finished (or stopped) experiment recorded.
    void replay(const Experiment& experiment, const std::string& unit);

    quint64 revision() const { return m_revision; }
    // Bumped by clear() (a new run or a replay): views drop what they drew and start again.
    quint64 generation() const { return m_generation; }
    const QList<ArmTrace>& arms() const { return m_arms; }
    const ArmTrace* arm(const QString& name) const;
    const ArmTrace& warmups() const { return m_warmups; }
    const QList<LaneTrace>& lanes() const { return m_lanes; }
    const LaneTrace* lane(const QString& name) const;
    // Every repetition's interval, in arrival (= time) order.
    const QList<RepSpan>& spans() const { return m_spans; }
    // Seconds from the first sample's clock to the lanes' clock applied by replay() (0 live, or
    // when the study stores each repetition's start on the lanes' clock).
    double replayAlignment() const { return m_alignment; }
    bool replayAlignedByEnd() const { return m_alignedByEnd; }
    // A monotonic clock in nanoseconds, for arrival stamps.
    static qint64 nowNs();
    QString metric() const { return m_metric; }
    QString unit() const { return m_unit; }
    int sampleCount() const;

private:
    ArmTrace& armTrace(const QString& name);

    QList<ArmTrace> m_arms;
    ArmTrace m_warmups;
    QList<LaneTrace> m_lanes;
    QList<RepSpan> m_spans;
    double m_alignment = 0;
    bool m_alignedByEnd = false;
    QString m_metric;
    QString m_unit;
    quint64 m_revision = 0;
    quint64 m_generation = 0;
};

// Seconds since the experiment started at which each sample finished: from started_at when every
// sample has one, else the running sum of durations in run order (warm-ups first).
std::vector<double> sampleTimes(const Experiment& experiment);

} // namespace kwb::gui
