// SPDX-License-Identifier: GPL-3.0-or-later
// The metric diff between arms (verdict/metric_diff.h): repetition windows on the lanes' clock,
// t-based 95% CIs checked against scipy, the verdict's noise rule, the binding call per arm.
#include "verdict/metric_diff.h"

#include <QTest>
#include <algorithm>
#include <cmath>

using namespace kwb;

namespace {

// Five 1-second repetitions per arm in ABBA order, three readings of each lane inside each, and a
// reading between repetitions (the gap) that must not count.
Experiment two_arms()
{
    Experiment e;
    e.arms = {Arm {}, Arm {}};
    e.arms[0].name = "baseline";
    e.arms[1].name = "treatment";
    const double dram_b[5][3] = {{66, 67, 68}, {65, 66, 67}, {67, 68, 69}, {66, 66, 66}, {64, 66, 68}};
    const double dram_t[5][3] = {{88, 88, 88}, {87, 88, 89}, {89, 90, 91}, {88, 89, 90}, {86, 87, 88}};
    const char* order[10] = {"baseline", "treatment", "treatment", "baseline", "baseline", "treatment", "treatment",
        "baseline", "baseline", "treatment"};
    SamplerLane dram {"dram_pct", "%", {}, {}}, tensor {"tensor_pct", "%", {}, {}}, clock {"sm_clock", "MHz", {}, {}};
    int rb = 0, rt = 0;
    for (int i = 0; i < 10; ++i) {
        const bool base = order[i] == std::string("baseline");
        Sample s;
        s.arm = order[i];
        s.rep = base ? rb : rt;
        s.position = i;
        s.t_s = 2.0 * i;
        s.duration_s = 1.0;
        s.metrics["time_ms"] = base ? 1.0 : 0.8;
        e.samples.push_back(s);
        for (int k = 0; k < 3; ++k) {
            const double t = 2.0 * i + 0.25 * (k + 1);
            dram.t_s.push_back(t);
            dram.values.push_back(base ? dram_b[rb][k] : dram_t[rt][k]);
            tensor.t_s.push_back(t);
            tensor.values.push_back(5.0 + 0.1 * k);
            clock.t_s.push_back(t);
            clock.values.push_back(1980.0 - (k == 1 ? 1.0 : 0.0));
        }
        for (SamplerLane* l : {&dram, &tensor, &clock}) { // between repetitions: never counted
            l->t_s.push_back(2.0 * i + 1.5);
            l->values.push_back(1000.0);
        }
        (base ? rb : rt)++;
    }
    Sample warm; // a warm-up with readings: not judged, not counted
    warm.arm = "baseline";
    warm.warmup = true;
    warm.t_s = 20.0;
    warm.duration_s = 1.0;
    e.samples.push_back(warm);
    for (SamplerLane* l : {&dram, &tensor, &clock}) {
        l->t_s.push_back(20.5);
        l->values.push_back(0.0);
    }
    e.lanes = {dram, tensor, clock};
    return e;
}

const MetricDiffRow& row(const MetricDiff& d, const std::string& name)
{
    return *std::find_if(d.rows.begin(), d.rows.end(), [&](const MetricDiffRow& r) { return r.metric == name; });
}

} // namespace

class TestMetricDiff : public QObject {
    Q_OBJECT

private slots:
    void meansAndIntervalsMatchScipy()
    {
        const auto d = metric_diff(two_arms(), "baseline", "treatment", 2.0);
        QVERIFY(d);
        QCOMPARE(d->rows.size(), std::size_t(3));
        const auto& dram = row(*d, "dram_pct");
        QCOMPARE(dram.baseline.repetitions, std::size_t(5));
        // scipy: repetition means [67, 66, 68, 66, 66] and [88, 88, 90, 89, 87];
        // stats.t.ppf(0.975, 4) * sd / sqrt(5) around them.
        QVERIFY(std::fabs(*dram.baseline.mean - 66.6) < 1e-12);
        QVERIFY(std::fabs(*dram.baseline.ci95_low - 65.48942195792087) < 1e-9);
        QVERIFY(std::fabs(*dram.baseline.ci95_high - 67.71057804207912) < 1e-9);
        QVERIFY(std::fabs(*dram.treatment.ci95_low - 86.98428522301774) < 1e-9);
        QVERIFY(std::fabs(*dram.baseline.cv_pct - 1.3429837702701442) < 1e-9);
        QVERIFY(std::fabs(*dram.delta - 21.8) < 1e-9);
        QVERIFY(dram.beyond_noise); // 32.7% against 2 x 1.34%
        QVERIFY(d->notes.empty());
    }

    void theVerdictsNoiseRuleDecides()
    {
        const auto d = metric_diff(two_arms(), "baseline", "treatment", 2.0);
        const auto& clock = row(*d, "sm_clock");
        QVERIFY(std::fabs(*clock.delta) < 1e-9);
        QVERIFY(!clock.beyond_noise);
        // A wide enough noise band holds even the DRAM move.
        const auto wide = metric_diff(two_arms(), "baseline", "treatment", 25.0);
        QVERIFY(!row(*wide, "dram_pct").beyond_noise);
    }

    void bindingPerArmAndItsChange()
    {
        const auto d = metric_diff(two_arms(), "baseline", "treatment", 2.0);
        // Baseline: DRAM 66.6% (< 80), tensor 5%: no axis above its threshold; treatment: DRAM 88.4%.
        QCOMPARE(d->baseline_binding, std::string("at-extremes"));
        QCOMPARE(d->treatment_binding, std::string("memory-bandwidth"));
        QCOMPARE(d->binding_change, std::string("at-extremes -> memory-bandwidth"));
        const auto summary = metric_diff_summary(*d);
        QVERIFY(summary.find("dram_pct 66.6 -> 88.4 % (+21.80 points)") != std::string::npos);
        QVERIFY(summary.find("binding constraint at-extremes -> memory-bandwidth") != std::string::npos);
        QVERIFY(summary.find("sm_clock") == std::string::npos);
    }

    void nothingToDiff()
    {
        Experiment e = two_arms();
        e.lanes.clear();
        QVERIFY(!metric_diff(e, "baseline", "treatment", 2.0));
        e = two_arms();
        for (auto& s : e.samples)
            s.t_s.reset(); // an older study: repetitions not placed on the lanes' clock
        QVERIFY(!metric_diff(e, "baseline", "treatment", 2.0));
    }

    // A study recorded before the range rule holds impossible readings (sm_pct 533%); the diff,
    // like the report, leaves out what the rule drops and keeps what it clamps.
    void readingsTheRangeRuleDropsDoNotCount()
    {
        Experiment e = two_arms();
        auto& dram = e.lanes[0];
        dram.t_s.insert(dram.t_s.begin() + 1, 0.3);
        dram.values.insert(dram.values.begin() + 1, 533.0);
        const auto d = metric_diff(e, "baseline", "treatment", 2.0);
        QVERIFY(std::fabs(*row(*d, "dram_pct").baseline.mean - 66.6) < 1e-12);
        dram.values[1] = 100.3; // clamped to 100: the first repetition reads (66 + 100 + 67 + 68) / 4
        const auto c = metric_diff(e, "baseline", "treatment", 2.0);
        QVERIFY(std::fabs(*row(*c, "dram_pct").baseline.mean - (75.25 + 66 + 68 + 66 + 66) / 5) < 1e-12);
    }

    // A lane read once a second beside short repetitions has no value per repetition: one note, no row.
    // A lane retired for disagreeing with ncu (sampling/cupti_metrics.h) is not evidence, even in a
    // study recorded while it was collected: the same readings under a live lane's name are.
    void aRetiredLaneIsLeftOut()
    {
        Experiment e = two_arms();
        SamplerLane l2 = e.lanes[0];
        l2.name = "l2_pct";
        e.lanes.push_back(l2);
        const auto d = metric_diff(e, "baseline", "treatment", 2.0);
        QVERIFY(d);
        QVERIFY(
            std::none_of(d->rows.begin(), d->rows.end(), [](const MetricDiffRow& r) { return r.metric == "l2_pct"; }));
        QVERIFY(row(*d, "dram_pct").beyond_noise);
        QVERIFY(metric_diff_summary(*d).find("l2_pct") == std::string::npos);
    }

    void aLaneReadTooRarelyIsNamedNotCompared()
    {
        Experiment e = two_arms();
        e.lanes.push_back({"power", "W", {0.5, 2.5}, {300.0, 310.0}}); // one baseline, one treatment reading
        const auto d = metric_diff(e, "baseline", "treatment", 2.0);
        QCOMPARE(d->rows.size(), std::size_t(3));
        QCOMPARE(d->notes.size(), std::size_t(1));
        QVERIFY(d->notes.front().find("read too rarely") != std::string::npos);
        QVERIFY(d->notes.front().find("power") != std::string::npos);
    }

    void aLaneMissingInSomeRepetitionsIsNamed()
    {
        Experiment e = two_arms();
        auto& dram = e.lanes[0];
        // Drop the readings of the first repetition (t in [0, 1]).
        std::vector<double> t, v;
        for (std::size_t i = 0; i < dram.t_s.size(); ++i)
            if (dram.t_s[i] > 1.0)
                t.push_back(dram.t_s[i]), v.push_back(dram.values[i]);
        dram.t_s = t;
        dram.values = v;
        const auto d = metric_diff(e, "baseline", "treatment", 2.0);
        QCOMPARE(row(*d, "dram_pct").baseline.repetitions, std::size_t(4));
        QCOMPARE(d->notes.size(), std::size_t(1));
        QVERIFY(d->notes.front().find("4 of 5 baseline") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestMetricDiff)
#include "tst_metric_diff.moc"
