// SPDX-License-Identifier: GPL-3.0-or-later
// The binding classifier: every branch of the license matrix on synthetic evidence, the order of
// the branches, the warnings, and the H200 evidence recorded in shared/notes/cupti-h200.md
// section 5 (ncu values of a 2 GiB copy and a bf16 8192^3 cuBLAS GEMM).
#include "hardware/binding_classifier.h"

#include <QTest>

using namespace kwb;

class TestBindingClassifier : public QObject {
    Q_OBJECT

private slots:
    void everyBranch_data()
    {
        QTest::addColumn<int>("branch");
        QTest::addColumn<QString>("constraint");
        for (const auto& [i, c] : std::vector<std::pair<int, const char*>> {{0, "compute"}, {1, "compute"},
                 {2, "memory-bandwidth"}, {3, "smem"}, {4, "compute-suboptimal"}, {5, "launch-overhead"},
                 {6, "scheduler"}, {7, "at-extremes"}, {8, ""}, {9, "at-extremes"}})
            QTest::addRow("%s/%d", c, i) << i << QString::fromLatin1(c);
    }
    void everyBranch()
    {
        QFETCH(int, branch);
        QFETCH(QString, constraint);
        BindingEvidenceInput in;
        switch (branch) {
        case 0:
            in.tensor_pct = 95;
            in.dram_pct = 90;
            break; // compute wins over memory (order)
        case 1:
            in.fma_pct = 85;
            in.tensor_pct = 0;
            break;
        case 2:
            in.dram_pct = 83;
            in.occupancy_pct = 94;
            in.tensor_pct = 0;
            break;
        case 3:
            in.blocks_per_sm = 1;
            in.smem_per_block_kib = 200;
            in.tensor_pct = 60;
            break;
        case 4:
            in.tensor_pct = 25;
            in.occupancy_pct = 70;
            break;
        case 5:
            in.launches_per_s = 5000;
            in.kernel_share_pct = 40;
            break;
        case 6:
            in.sm_active_pct = 30;
            break;
        case 7:
            in.sm_pct = 70;
            in.dram_pct = 70;
            in.tensor_pct = 60;
            in.sm_active_pct = 99;
            break;
        case 8:
            in.tensor_pct = 60; // no DRAM reading: not enough to call it
            break;
        case 9:
            in.tensor_pct = 60; // every axis measured, none above its threshold: the matrix's last row
            in.dram_pct = 10;
            in.occupancy_pct = 30;
            in.sm_active_pct = 95;
            break;
        }
        const auto call = classify_binding(in);
        QCOMPARE(QString::fromStdString(call.constraint), constraint);
        QVERIFY(!call.evidence.empty());
        QCOMPARE(call.axis.empty(), constraint.isEmpty());
    }

    void thresholdsAreStrictWhereTheMatrixSaysSo()
    {
        BindingEvidenceInput in;
        in.dram_pct = 80; // "> 80": exactly 80 is not memory-bound
        QVERIFY(classify_binding(in).constraint != "memory-bandwidth");
        in.dram_pct = 80.1;
        QCOMPARE(classify_binding(in).constraint, std::string("memory-bandwidth"));
        BindingEvidenceInput launches;
        launches.launches_per_s = 5000;
        launches.kernel_share_pct = 75; // dispatch 25% < 30%
        QVERIFY(classify_binding(launches).constraint != "launch-overhead");
    }

    void evidenceNamesTheThreshold()
    {
        BindingEvidenceInput in;
        in.dram_pct = 83;
        const auto call = classify_binding(in);
        QVERIFY(call.evidence.front().find("> 80%") != std::string::npos);
    }

    void warnsWhenProfilerAndWallClockDisagree()
    {
        BindingEvidenceInput in;
        in.dram_pct = 83;
        in.profiled_ms_per_launch = 1.5;
        in.timed_ms_per_launch = 1.07;
        const auto call = classify_binding(in);
        QCOMPARE(call.warnings.size(), size_t {1});
        QVERIFY(call.warnings.front().find("disagree") != std::string::npos);
        // Slower under the profiler: a call from that profile would describe another run.
        QVERIFY(call.constraint.empty());
        QVERIFY(call.evidence.front().find("not determined") == 0);
        QVERIFY(call.evidence.front().find("+40.2%") != std::string::npos);
        in.profiled_ms_per_launch = 1.075;
        QVERIFY(classify_binding(in).warnings.empty());
        QCOMPARE(classify_binding(in).constraint, std::string("memory-bandwidth"));
        // Faster under the profiler (host time between timed launches): warned, still called.
        in.profiled_ms_per_launch = 0.5;
        QCOMPARE(classify_binding(in).constraint, std::string("memory-bandwidth"));
        QCOMPARE(classify_binding(in).warnings.size(), size_t {1});
    }

    void warnsOfTheFramingTrap()
    {
        // Kernels cover 20% of the wall clock: a memory-bound kernel binds at most that share.
        BindingEvidenceInput in;
        in.dram_pct = 90;
        in.kernel_share_pct = 20;
        in.launches_per_s = 50;
        const auto call = classify_binding(in);
        QCOMPARE(call.constraint, std::string("memory-bandwidth"));
        QCOMPARE(call.warnings.size(), size_t {1});
        QVERIFY(call.warnings.front().find("cover only 20%") != std::string::npos);
        in.kernel_share_pct = 71; // 29% outside kernels: no warning
        QVERIFY(classify_binding(in).warnings.empty());
    }

    void thresholdsJsonNamesEveryThreshold()
    {
        BindingThresholds t;
        t.dram_bound_pct = 75;
        const auto j = binding_thresholds_json(t);
        QCOMPARE(j.size(), size_t {11});
        QCOMPARE(j.at("dram_bound_pct").get<double>(), 75.0);
        BindingEvidenceInput in;
        in.dram_pct = 77; // over a lowered threshold
        QCOMPARE(classify_binding(in, t).constraint, std::string("memory-bandwidth"));
    }

    void recordedH200Evidence()
    {
        // shared/notes/cupti-h200.md section 5, ncu column.
        BindingEvidenceInput copy;
        copy.dram_pct = 83.03;
        copy.occupancy_pct = 94.27;
        copy.sm_pct = 6.03;
        copy.tensor_pct = 0;
        QCOMPARE(classify_binding(copy).constraint, std::string("memory-bandwidth"));
        BindingEvidenceInput gemm;
        gemm.dram_pct = 20.57;
        gemm.occupancy_pct = 14.78;
        gemm.sm_pct = 93.38;
        gemm.tensor_pct = 96.93;
        QCOMPARE(classify_binding(gemm).constraint, std::string("compute"));
    }

    // The H200's paged decode at batch 64, 8k (bench/results/2026-12-02-h200-evidence/evidence/
    // profile-decode.json): DRAM 66.8 % of the datasheet peak, under 80, and every other axis under
    // its threshold, so the matrix's last row read "at-extremes"; its declared K/V bytes move at
    // 4.2 TB/s timed, 96% of the measured read-only ceiling: memory-bandwidth.
    void bytesAtTheMeasuredCeilingAreMemoryBound()
    {
        BindingEvidenceInput in;
        in.dram_pct = 66.83;
        in.fma_pct = 27.6;
        in.tensor_pct = 0.08;
        in.sm_pct = 49.2;
        in.occupancy_pct = 12.5;
        in.sm_active_pct = 99.3;
        in.blocks_per_sm = 2;
        in.smem_per_block_kib = 103;
        QCOMPARE(classify_binding(in).constraint, std::string("at-extremes"));
        in.timed_gbs = 4200;
        in.bandwidth_ceiling_gbs = 4367;
        in.bandwidth_ceiling_name = "read-only ceiling";
        const auto call = classify_binding(in);
        QCOMPARE(call.constraint, std::string("memory-bandwidth"));
        QCOMPARE(call.evidence.size(), size_t {1});
        QVERIFY2(
            call.evidence.front().find("96% of the measured read-only ceiling (4367 GB/s) >= 80%") != std::string::npos,
            call.evidence.front().c_str());
        in.timed_gbs = 3400; // 78 %: under the threshold, back to the matrix
        QCOMPARE(classify_binding(in).constraint, std::string("at-extremes"));
        in.timed_gbs = 4200;
        in.bandwidth_ceiling_gbs.reset(); // no ceiling measured: no comparison
        QCOMPARE(classify_binding(in).constraint, std::string("at-extremes"));
        QVERIFY(binding_metrics_json(in).contains("timed_gbs"));
        QVERIFY(!binding_metrics_json(in).contains("bandwidth_ceiling_gbs"));
    }

    void metricsJsonLeavesOutWhatWasNotMeasured()
    {
        BindingEvidenceInput in;
        in.dram_pct = 50;
        const auto j = binding_metrics_json(in);
        QCOMPARE(j.size(), size_t {1});
        QCOMPARE(j.at("dram_pct").get<double>(), 50.0);
    }
};

QTEST_GUILESS_MAIN(TestBindingClassifier)
#include "tst_binding_classifier.moc"
