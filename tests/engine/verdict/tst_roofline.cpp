// SPDX-License-Identifier: GPL-3.0-or-later
// The roofline (verdict/roofline.h) on hand-computed numbers. Roofs: bandwidth 4000 GB/s,
// compute 1000 TFLOP/s, so the ridge is 1000 x 1000 / 4000 = 250 FLOP/B.
// - 2000 GB/s and 20 TFLOP/s: intensity 20 x 1000 / 2000 = 10 FLOP/B < 250, memory-bound; the
//   roof there is 4000 x 10 / 1000 = 40 TFLOP/s, so 20 reaches 50% of it.
// - 1000 GB/s and 500 TFLOP/s: intensity 500 FLOP/B > 250, compute-bound; 500 / 1000 = 50%.
// - 10, 20, 30, 40 TFLOP/s at 1000 GB/s: median 25; numpy's 25th and 75th percentiles of four
//   values are 17.5 and 32.5 (h = 0.75 and 2.25).
// - decode attention recorded with bytes only: 4 x tokens x heads x head_dim FLOPs over
//   2 x tokens x kv_heads x head_dim x 2 bytes (bf16) = 2 x 32 / (8 x 2) = 4 FLOP/B at the default
//   heads 32, kv_heads 8; fp8 (1 byte) makes it 8. At 3000 GB/s: 3000 x 4 / 1000 = 12 TFLOP/s.
#include "study/study.h"
#include "study/study_file.h"
#include "verdict/metric_diff.h"
#include "verdict/roofline.h"
#include "verdict/roofline_chart.h"

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
        QCOMPARE(roofline_arm_line(b),
            std::string("baseline: 10 FLOP/B, 20 TFLOP/s (IQR 20-20, n = 3), 50% of the memory roof"));
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

    // The chart's geometry (verdict/roofline_chart.h), which the window and the report both draw.
    // Points at 10 and 500 FLOP/B, ridge 250: x from 10 / 4 = 2.5 to 500 x 4 = 2000. The DRAM roof
    // runs from (2.5, 4000 x 2.5 / 1000 = 10) to the ridge (250, 1000); the L2 roof (8000 GB/s)
    // meets compute at 1000 x 1000 / 8000 = 125; compute is flat from 250 to 2000. y: the lowest of
    // 10 (the roof at the left edge) and 20, over 2.5 = 4; the highest, 1000 x 2.5 = 2500.
    void theChartsFrameAndRoofs()
    {
        auto withL2 = roofs();
        withL2.l2_gbs = Roof {8000, "L2 read ceiling"};
        const auto r = of(arm("baseline", 2000, {20}), arm("treatment", 1000, {500}), withL2);
        const RooflineFrame f = roofline_frame(r);
        QCOMPARE(f.intensity_lo, 2.5);
        QCOMPARE(f.intensity_hi, 2000.0);
        QCOMPARE(f.tflops_lo, 4.0);
        QCOMPARE(f.tflops_hi, 2500.0);
        const auto segments = roofline_segments(r, f);
        QCOMPARE(segments.size(), std::size_t(3));
        QCOMPARE(segments[0].kind, RoofKind::Dram);
        QCOMPARE(segments[0].points.front(), std::make_pair(2.5, 10.0));
        QCOMPARE(segments[0].points.back(), std::make_pair(250.0, 1000.0));
        QCOMPARE(segments[0].label, std::string("DRAM 4 TB/s (read-only ceiling)"));
        QCOMPARE(segments[1].kind, RoofKind::L2);
        QCOMPARE(segments[1].points.back(), std::make_pair(125.0, 1000.0));
        QCOMPARE(segments[2].kind, RoofKind::Compute);
        QCOMPARE(segments[2].points.front(), std::make_pair(250.0, 1000.0));
        QCOMPARE(segments[2].points.back(), std::make_pair(2000.0, 1000.0));
        QCOMPARE(roofline_ridge_label(r), std::string("ridge 250 FLOP/B"));
        QCOMPARE(roofline_caption(r).size(), std::size_t(2)); // each arm's line, nothing derived, no note

        const auto missing = of(arm("baseline", 2000, {20}), arm("treatment", 1000, {0}));
        const auto caption = roofline_caption(missing);
        QCOMPARE(caption.size(), std::size_t(2));
        QVERIFY2(caption[1].find("treatment: no point: the workload declares no FLOP count") == 0, caption[1].c_str());
    }

    // A decode study recorded before the workload declared its FLOPs: the parameters fix FLOPs
    // per byte, so each repetition's TFLOP/s is derived from its GB/s, and the arm says so.
    void aDecodeRecordedWithBytesOnlyIsPlacedFromItsParameters()
    {
        Study s;
        s.hardware.devices.push_back({{"kind", "cuda"}, {"uuid", "GPU-x"}, {"l2_bytes", 62914560},
            {"measured", {{"read_gbs", {{"median", 4383.0}}}, {"l2_read_gbs", {{"median", 8010.0}}}}}});
        Experiment e;
        e.workload = "attention_decode";
        e.backend = "cuda";
        e.device = {"cuda", "NVIDIA H200", "GPU-x", 0, ""};
        for (const char* name : {"baseline", "treatment"}) {
            Arm a;
            a.name = name;
            a.params = {{"batch", 64}};
            if (std::string(name) == "treatment")
                a.params["kv_dtype"] = "fp8";
            e.arms.push_back(a);
            Sample smp;
            smp.arm = name;
            smp.metrics = {{"time_ms", 0.5}, {"gbs", 3000.0}};
            e.samples.push_back(smp);
        }
        const auto r = study_roofline(s, e);
        QVERIFY(r && r->has_arrow());
        QCOMPARE(r->arms[0].point->intensity, 4.0);
        QCOMPARE(r->arms[0].point->tflops, 12.0);
        QCOMPARE(r->arms[1].point->intensity, 8.0);
        QVERIFY2(r->arms[0].derived.find("4 FLOP/B") != std::string::npos, r->arms[0].derived.c_str());
        QCOMPARE(r->arms[0].bound, RooflineBound::Memory);
        QVERIFY(!r->arms[0].measured_dram_intensity); // no DRAM lanes recorded
        QCOMPARE(r->l2_gbs->value, 8010.0); // the measured L2 ceiling, drawn
        QVERIFY(r->bandwidth_gbs->value == 4383.0); // the DRAM roof is the read-only ceiling, not the L2's

        // A workload whose parameters do not fix FLOPs per byte (the copy has none) keeps its reason.
        e.workload = "bandwidth";
        const auto copy = study_roofline(s, e);
        QVERIFY(!copy->arms[0].point);
        QVERIFY(copy->arms[0].derived.empty());
        QVERIFY2(copy->arms[0].reason.find("no FLOP count") != std::string::npos, copy->arms[0].reason.c_str());
    }

    // The recorded H200 decode A/B (simt -> mma, batch 64, 8k; no tflops metric then): both arms
    // placed at 4 FLOP/B, memory-bound under the 4383 GB/s read-only ceiling (ridge 989.4 x 1000 /
    // 4383 = 226), the mma arm higher; the arrow runs up the memory roof.
    void theRecordedDecodeStudyIsPlaced()
    {
        const Study s = load_study(KWB_SOURCE_DIR "/bench/results/2026-12-02-h200-evidence/evidence/decode-impl.json");
        const auto r = study_roofline(s, s.experiments.at(0));
        QVERIFY(r && r->has_arrow());
        QCOMPARE(r->device, std::string("NVIDIA H200"));
        QVERIFY(r->l2_gbs);
        QVERIFY(qAbs(*r->ridge_intensity - 989.4 * 1000 / r->bandwidth_gbs->value) < 1e-9);
        for (const auto& a : r->arms) {
            QCOMPARE(a.point->intensity, 4.0);
            QCOMPARE(a.bound, RooflineBound::Memory);
            QVERIFY(!a.derived.empty());
            QVERIFY(*a.fraction_of_roof > 0.5 && *a.fraction_of_roof < 1.0);
        }
        QVERIFY(r->arms[1].point->tflops > r->arms[0].point->tflops);
        // The CUPTI lanes measured each arm's DRAM traffic: its TFLOP/s over that is a second
        // intensity (dram_read + dram_write means over the judged repetitions, metric_diff's).
        const auto diff = metric_diff(s.experiments.at(0), "baseline", "treatment", 2);
        QVERIFY(diff);
        for (std::size_t i = 0; i < 2; ++i) {
            double gbs = 0;
            for (const auto& row : diff->rows)
                if (row.metric == "dram_read" || row.metric == "dram_write")
                    gbs += *(i == 0 ? row.baseline : row.treatment).mean;
            const auto& a = r->arms[i];
            QVERIFY(a.measured_dram_intensity);
            QVERIFY(qFuzzyCompare(*a.measured_dram_gbs, gbs));
            QVERIFY(qFuzzyCompare(*a.measured_dram_intensity, a.point->tflops * 1000 / gbs));
            QVERIFY2(roofline_arm_line(a).find("on the measured DRAM traffic") != std::string::npos,
                roofline_arm_line(a).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "tst_roofline.moc"
