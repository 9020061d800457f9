// SPDX-License-Identifier: GPL-3.0-or-later
// The roofline (verdict/roofline.h) on hand-computed numbers. Roofs: bandwidth 4000 GB/s,
// compute 1000 TFLOP/s, so the ridge is 1000 x 1000 / 4000 = 250 FLOP/B.
// - 2000 GB/s and 20 TFLOP/s: intensity 20 x 1000 / 2000 = 10 FLOP/B < 250, memory-bound; the
//   roof there is 4000 x 10 / 1000 = 40 TFLOP/s, so 20 reaches 50% of it.
// - 1000 GB/s and 500 TFLOP/s: intensity 500 FLOP/B > 250, compute-bound; 500 / 1000 = 50%.
// - 10, 20, 30, 40 TFLOP/s at 1000 GB/s: median 25; numpy's 25th and 75th percentiles of four
//   values are 17.5 and 32.5 (h = 0.75 and 2.25).
#include "study/study.h"
#include "verdict/roofline.h"

#include <QTest>

using namespace kwb;

namespace {

SpeedOfLightRoofs roofs()
{
    SpeedOfLightRoofs r;
    r.device = "Fixture GPU";
    r.dram_gbs = Roof {4000, "read-only ceiling"};
    r.compute_tflops = Roof {1000, "bf16 datasheet peak (dense)"};
    r.cache_bytes = 50e6;
    return r;
}

// Repetitions at these GB/s and TFLOP/s (0: the workload does not declare it).
SpeedOfLightArm arm(const char* name, double gbs, std::vector<double> tflops)
{
    SpeedOfLightArm a {name, {}};
    for (double t : tflops) {
        SpeedOfLightRep r;
        r.time_ms = 1;
        if (gbs > 0)
            r.gbs = gbs;
        if (t > 0)
            r.tflops = t;
        a.reps.push_back(r);
    }
    return a;
}

Roofline of(SpeedOfLightArm b, SpeedOfLightArm t, SpeedOfLightRoofs r = roofs())
{
    return roofline(SpeedOfLightInput {std::move(r), {std::move(b), std::move(t)}, kSpeedOfLightMarginPct});
}

} // namespace

class TestRoofline : public QObject {
    Q_OBJECT
private slots:
    void theRidgeIsComputeOverBandwidth()
    {
        const auto r = of(arm("baseline", 2000, {20}), arm("treatment", 1000, {500}));
        QVERIFY(r.ridge_intensity);
        QCOMPARE(*r.ridge_intensity, 250.0);
        QVERIFY(r.notes.empty());
        QVERIFY(r.has_arrow());
    }

    void eachArmIsPlacedAndBound()
    {
        const auto r = of(arm("baseline", 2000, {20, 20, 20}), arm("treatment", 1000, {500, 500}));
        const auto& b = r.arms[0];
        QCOMPARE(b.name, std::string("baseline"));
        QVERIFY(b.point);
        QCOMPARE(b.point->intensity, 10.0);
        QCOMPARE(b.point->tflops, 20.0);
        QCOMPARE(b.point->n, std::size_t(3));
        QCOMPARE(b.bound, RooflineBound::Memory);
        QCOMPARE(*b.attainable_tflops, 40.0);
        QCOMPARE(*b.fraction_of_roof, 0.5);
        const auto& t = r.arms[1];
        QCOMPARE(t.point->intensity, 500.0);
        QCOMPARE(t.bound, RooflineBound::Compute);
        QCOMPARE(*t.attainable_tflops, 1000.0);
        QCOMPARE(*t.fraction_of_roof, 0.5);
        QCOMPARE(roofline_arm_line(b), std::string("baseline: 10 FLOP/B, 20 TFLOP/s (IQR 20-20, n = 3), 50% of the memory roof"));
    }

    void theSpreadIsTheInterquartileRange()
    {
        const auto r = of(arm("baseline", 1000, {10, 20, 30, 40}), arm("treatment", 1000, {500}));
        const auto& p = *r.arms[0].point;
        QCOMPARE(p.tflops, 25.0);
        QCOMPARE(p.tflops_iqr.lo, 17.5);
        QCOMPARE(p.tflops_iqr.hi, 32.5);
        QCOMPARE(p.intensity_iqr.lo, 17.5);
        QCOMPARE(p.intensity_iqr.hi, 32.5);
    }

    void aMissingCountIsStatedNotInvented_data()
    {
        QTest::addColumn<double>("gbs");
        QTest::addColumn<double>("tflops");
        QTest::addColumn<QString>("reason");
        QTest::addRow("bytes only") << 4000.0 << 0.0 << QStringLiteral("no FLOP count");
        QTest::addRow("FLOPs only") << 0.0 << 10.0 << QStringLiteral("no byte count");
        QTest::addRow("neither") << 0.0 << 0.0 << QStringLiteral("no byte or FLOP count");
    }
    void aMissingCountIsStatedNotInvented()
    {
        QFETCH(double, gbs);
        QFETCH(double, tflops);
        QFETCH(QString, reason);
        const auto r = of(arm("baseline", 2000, {20}), arm("treatment", gbs, {tflops, tflops}));
        const auto& t = r.arms[1];
        QVERIFY(!t.point);
        QVERIFY(!t.fraction_of_roof);
        QCOMPARE(t.bound, RooflineBound::Unknown);
        QVERIFY2(QString::fromStdString(t.reason).contains(reason), t.reason.c_str());
        QVERIFY(!r.has_arrow());
        QVERIFY(r.arms[0].point); // the other arm keeps its point
    }

    void withoutARoofNoBoundIsCalled()
    {
        auto bare = roofs();
        bare.dram_gbs.reset();
        const auto r = of(arm("baseline", 2000, {20}), arm("treatment", 1000, {500}), bare);
        QVERIFY(!r.ridge_intensity);
        QCOMPARE(r.notes.size(), std::size_t(1));
        QVERIFY(r.arms[0].point); // the point is measured: still drawn
        QCOMPARE(r.arms[0].bound, RooflineBound::Unknown);
        QVERIFY(!r.arms[0].fraction_of_roof);
    }

    void theStudysSnapshotGivesTheRoofs()
    {
        Study s;
        s.hardware.devices.push_back({{"kind", "cuda"}, {"uuid", "GPU-x"}, {"l2_bytes", 62914560},
            {"measured", {{"copy_gbs", {{"median", 4260.0}}}, {"read_gbs", {{"median", 4510.0}}}}}});
        Experiment e;
        e.workload = "gemm";
        e.device = {"cuda", "NVIDIA H200", "GPU-x", 0, ""};
        for (const char* name : {"baseline", "treatment"}) {
            Arm a;
            a.name = name;
            e.arms.push_back(a);
            Sample smp;
            smp.arm = name;
            smp.metrics = {{"time_ms", 1.0}, {"gbs", 200.0}, {"gflops", 200000.0}};
            e.samples.push_back(smp);
        }
        const auto r = study_roofline(s, e);
        QVERIFY(r);
        QCOMPARE(r->bandwidth_gbs->value, 4510.0); // the larger of read-only and copy
        QCOMPARE(r->compute_tflops->value, 989.4); // the catalogue's dense bf16 peak
        QCOMPARE(r->arms[0].point->intensity, 1000.0); // 200 TFLOP/s (gflops / 1000) over 200 GB/s
        QCOMPARE(r->arms[0].bound, RooflineBound::Compute); // ridge 989.4 x 1000 / 4510 = 219
        e.arms.pop_back();
        QVERIFY(!study_roofline(s, e)); // no A/B
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "tst_roofline.moc"
