// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/live_series.h"

#include <QTest>
#include <cmath>

using namespace Qt::StringLiterals;
using kwb::gui::LiveSeries;

class TestLiveSeries : public QObject {
    Q_OBJECT
private slots:
    void runningMeanAndBand();
    void warmupsAreKeptApart();
    void revisionCountsEveryAppend();
    void replayUsesStartTimes();
    void replayWithoutClockLaysRepetitionsEndToEnd();
};

void TestLiveSeries::runningMeanAndBand()
{
    LiveSeries s;
    s.setPlan({u"baseline"_s, u"treatment"_s}, u"time_ms"_s, u"ms"_s);
    s.addSample(u"baseline"_s, 0.1, 10, false);
    s.addSample(u"treatment"_s, 0.2, 8, false);
    s.addSample(u"baseline"_s, 0.3, 12, false);
    s.addSample(u"baseline"_s, 0.4, 14, false);
    const auto* b = s.arm(u"baseline"_s);
    QVERIFY(b);
    QCOMPARE(b->value.size(), 3);
    QCOMPARE(b->mean, QList<double>({10, 11, 12}));
    QCOMPARE(b->low.first(), 10.0); // one value: no spread yet
    QVERIFY(std::abs(b->high.last() - (12 + 2)) < 1e-12); // sd of 10,12,14 is 2
    QVERIFY(std::abs(b->low.last() - (12 - 2)) < 1e-12);
    QCOMPARE(s.sampleCount(), 4);
    QCOMPARE(s.arms().first().name, u"baseline"_s); // plan order, not arrival order
}

void TestLiveSeries::warmupsAreKeptApart()
{
    LiveSeries s;
    s.setPlan({u"baseline"_s}, u"m"_s, {});
    s.addSample(u"baseline"_s, 0.1, 99, true);
    s.addSample(u"baseline"_s, 0.2, 10, false);
    QCOMPARE(s.arm(u"baseline"_s)->value, QList<double>({10}));
    QCOMPARE(s.warmups().value, QList<double>({99}));
    QCOMPARE(s.sampleCount(), 1);
}

void TestLiveSeries::revisionCountsEveryAppend()
{
    LiveSeries s;
    const auto r0 = s.revision();
    s.addSample(u"a"_s, 0, 1, false);
    s.addLaneValue(u"cpu_util"_s, u"%"_s, 0, 50);
    QCOMPARE(s.revision(), r0 + 2);
    QCOMPARE(s.lane(u"cpu_util"_s)->unit, u"%"_s);
    QVERIFY(!s.lane(u"rss"_s));
}

void TestLiveSeries::replayUsesStartTimes()
{
    kwb::Experiment e;
    e.metric = "time_ms";
    e.arms = {{"baseline", {}}, {"treatment", {}}};
    auto sample = [](std::string arm, int pos, std::string at, double v, bool warm) {
        kwb::Sample s;
        s.arm = std::move(arm);
        s.position = pos;
        s.started_at = std::move(at);
        s.duration_s = 0.5;
        s.metrics["time_ms"] = v;
        s.warmup = warm;
        return s;
    };
    e.samples = {sample("baseline", 0, "2026-01-01T00:00:00.000Z", 20, true),
        sample("baseline", 0, "2026-01-01T00:00:01.000Z", 10, false),
        sample("treatment", 1, "2026-01-01T00:00:02.000Z", 8, false)};
    e.samples.push_back(sample("treatment", 2, "2026-01-01T00:00:03.000Z", 9, false));
    e.samples.back().discarded = true;
    e.lanes.push_back({"cpu_util", "%", {0.0, 1.0}, {90.0, 95.0}});
    LiveSeries s;
    s.replay(e, "ms");
    QCOMPARE(s.unit(), u"ms"_s);
    QCOMPARE(s.arm(u"baseline"_s)->t, QList<double>({1.5})); // finished = start + duration
    QCOMPARE(s.arm(u"treatment"_s)->value, QList<double>({8})); // the discarded run is not drawn
    QCOMPARE(s.warmups().t, QList<double>({0.5}));
    QCOMPARE(s.lane(u"cpu_util"_s)->value, QList<double>({90, 95}));
}

void TestLiveSeries::replayWithoutClockLaysRepetitionsEndToEnd()
{
    kwb::Experiment e;
    e.metric = "m";
    e.arms = {{"a", {}}};
    for (int pos : {1, 0}) {
        kwb::Sample s;
        s.arm = "a";
        s.position = pos;
        s.duration_s = 2;
        s.metrics["m"] = pos;
        e.samples.push_back(s);
    }
    const auto t = kwb::gui::sampleTimes(e);
    QCOMPARE(t, (std::vector<double> {4, 2}));
}

QTEST_GUILESS_MAIN(TestLiveSeries)
#include "tst_live_series.moc"
