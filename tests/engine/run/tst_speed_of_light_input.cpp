// SPDX-License-Identifier: GPL-3.0-or-later
// Where the speed-of-light guard's roofs come from (run/speed_of_light_input.h): the measured
// ceilings of the experiment's GPU (this machine's ceilings.json, else the study's hardware
// snapshot), the larger of read-only and copy; the datasheet's dense peak for compute, never the
// measured GEMM; and the whole path through judge_experiment on H200-shaped samples.
#include "../../any_contains.h"
#include "run/judge_experiment.h"
#include "run/speed_of_light_input.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace kwb;
using kwbtest::any_contains;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
const char* kUuid = "GPU-00000000-fixture";

nlohmann::json ceiling(double median, const char* unit)
{
    return {{"median", median}, {"n", 5}, {"min", median}, {"max", median}, {"cv_pct", 0.1}, {"unit", unit}};
}

Experiment h200_experiment(const std::string& workload = "attention_decode")
{
    Experiment e;
    e.id = "ab-1";
    e.workload = workload;
    e.metric = "time_ms";
    for (const char* name : {"baseline", "treatment"}) {
        Arm a;
        a.name = name;
        e.arms.push_back(a);
    }
    e.device = {"cuda", "NVIDIA H200", kUuid, 0, ""};
    return e;
}

// n interleaved judged repetitions of each arm at a time and bytes per launch.
void add_samples(Experiment& e, double base_ms, double treat_ms, double bytes, int n = 5)
{
    int position = 0;
    for (int i = 0; i < n; ++i)
        for (const auto& [arm, ms] : {std::pair {"baseline", base_ms}, std::pair {"treatment", treat_ms}}) {
            Sample s;
            s.arm = arm;
            s.rep = i;
            s.position = position++;
            const double jitter = 1 + 0.001 * (i % 3);
            s.metrics = {{"time_ms", ms * jitter}, {"gbs", bytes / (ms * jitter * 1e6)}};
            e.samples.push_back(s);
        }
}

const std::vector<MetricSpec> kMetrics {
    {"time_ms", "ms", Direction::Lower, ""}, {"gbs", "GB/s", Direction::Higher, ""}};

} // namespace

class TestSpeedOfLightInput : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    void write_ceilings(const nlohmann::json& entry)
    {
        QDir(dir_.path()).mkpath(QStringLiteral("kernel-workbench"));
        std::ofstream(dir_.filePath(QStringLiteral("kernel-workbench/ceilings.json")).toStdString())
            << nlohmann::json {{"devices", {{kUuid, entry}}}}.dump(2);
    }
    void remove_ceilings() { QFile::remove(dir_.filePath(QStringLiteral("kernel-workbench/ceilings.json"))); }

private slots:
    void initTestCase() { qputenv("XDG_DATA_HOME", dir_.path().toUtf8()); }
    void cleanup() { remove_ceilings(); }

    void withoutCalibrationTheDatasheetStandsIn()
    {
        const auto r = speed_of_light_roofs(Study {}, h200_experiment());
        QCOMPARE(r.device, std::string("NVIDIA H200"));
        QVERIFY(r.dram_gbs && !r.l2_gbs && r.compute_tflops);
        QCOMPARE(r.dram_gbs->value, 4800.0);
        QCOMPARE(r.dram_gbs->what, std::string("datasheet HBM peak"));
        QCOMPARE(r.compute_tflops->value, 989.4);
        QCOMPARE(r.cache_bytes, 60 * kMiB);
    }

    void theLargerMeasuredBandwidthIsTheRoofAndTheGemmIsNot()
    {
        write_ceilings({{"model", "NVIDIA H200"}, {"copy_gbs", ceiling(4260, "GB/s")},
            {"bf16_gemm_tflops", ceiling(691, "TFLOP/s")}});
        auto r = speed_of_light_roofs(Study {}, h200_experiment());
        QCOMPARE(r.dram_gbs->value, 4260.0);
        QCOMPARE(r.dram_gbs->what, std::string("copy ceiling"));
        QCOMPARE(r.compute_tflops->value, 989.4); // the datasheet's, not the measured 691
        QVERIFY(!r.l2_gbs);

        write_ceilings({{"copy_gbs", ceiling(4260, "GB/s")}, {"read_gbs", ceiling(4550, "GB/s")},
            {"l2_read_gbs", ceiling(9800, "GB/s")}});
        r = speed_of_light_roofs(Study {}, h200_experiment());
        QCOMPARE(r.dram_gbs->value, 4550.0);
        QCOMPARE(r.dram_gbs->what, std::string("read-only ceiling"));
        QCOMPARE(r.l2_gbs->value, 9800.0);
    }

    void theStudysSnapshotServesAnotherMachine()
    {
        Study s;
        s.hardware.devices = nlohmann::json::array({{{"kind", "cuda"}, {"uuid", kUuid}, {"l2_bytes", 50 * kMiB},
            {"measured", {{"copy_gbs", ceiling(4000, "GB/s")}}}}});
        const auto r = speed_of_light_roofs(s, h200_experiment());
        QCOMPARE(r.dram_gbs->value, 4000.0);
        QCOMPARE(r.cache_bytes, 50 * kMiB); // the device's own L2 over the catalogue's
    }

    void anUnknownDtypeGetsTheHighestPeak()
    {
        const auto r = speed_of_light_roofs(Study {}, h200_experiment("worker"));
        QCOMPARE(r.compute_tflops->value, 1978.9);
    }

    void decodeAtBatch64KeepsItsVerdict()
    {
        write_ceilings({{"copy_gbs", ceiling(4260, "GB/s")}});
        Study s;
        s.tradeoffs = {{"loc-complexity", true, "a second code path"}};
        Experiment e = h200_experiment();
        const double bytes = 4.5e12 * 0.511e-3; // 4.5 TB/s at 0.511 ms
        add_samples(e, 0.62, 0.511, bytes);
        judge_experiment(s, e, kMetrics);
        QVERIFY(e.final_verdict);
        QCOMPARE(e.final_verdict->sample_word, VerdictWord::License);
        QCOMPARE(e.final_verdict->word, VerdictWord::License);
        QVERIFY(any_contains(e.final_verdict->reasons, "speed-of-light guard holds (roofs of NVIDIA H200"));
    }

    void aSkippingTreatmentIsRefused()
    {
        write_ceilings({{"copy_gbs", ceiling(4260, "GB/s")}});
        Study s;
        s.tradeoffs = {{"loc-complexity", true, "a second code path"}};
        Experiment e = h200_experiment("bandwidth");
        const double bytes = 2.0 * 1024 * kMiB;
        add_samples(e, 0.51, 0.051, bytes); // a tenth of the work
        judge_experiment(s, e, kMetrics);
        QCOMPARE(e.final_verdict->sample_word, VerdictWord::License);
        QCOMPARE(e.final_verdict->word, VerdictWord::Inconclusive);
        QVERIFY2(e.final_verdict->reasons.front().rfind("speed-of-light guard: treatment: 0.051", 0) == 0,
            e.final_verdict->reasons.front().c_str());
        QVERIFY(any_contains(e.final_verdict->reasons, "above the 4.26 TB/s copy ceiling x 1.10"));
        QCOMPARE(s.ledger.back().verdict, std::string("INCONCLUSIVE"));
    }
};

QTEST_GUILESS_MAIN(TestSpeedOfLightInput)
#include "tst_speed_of_light_input.moc"
