// SPDX-License-Identifier: GPL-3.0-or-later
// Per-kernel evidence: PM samples attributed to CUPTI Activity kernel windows, on synthetic
// windows (coverage, purity, concurrency, launches/s, kernel share) and on the 1 ms samples
// recorded on the H200 (tests/data/profile/pm_h200_windows.json, made by make_pm_h200_fixture.py
// from shared/probes/cupti/results/pm_samples_1000us.csv), which must classify the copy as
// memory-bound and the GEMM, FMA and WMMA kernels as compute-bound.
#include "hardware/kernel_evidence.h"

#include <QTest>
#include <fstream>

using namespace kwb;

namespace {

constexpr std::uint64_t kMs = 1'000'000;

PmWindow window(std::uint64_t start_ms, double dram, double tensor)
{
    return {start_ms * kMs, (start_ms + 1) * kMs, {{"dram_pct", dram}, {"tensor_pct", tensor}}};
}

struct Recorded {
    std::vector<KernelRecord> kernels;
    std::vector<PmWindow> samples;
};

Recorded load_recorded()
{
    std::ifstream in(KWB_TEST_DATA_DIR "/profile/pm_h200_windows.json");
    const auto j = nlohmann::json::parse(in);
    Recorded r;
    for (const auto& k : j.at("kernels"))
        r.kernels.push_back({k.at("name").get<std::string>(), k.at("start_ns").get<std::uint64_t>(),
            k.at("end_ns").get<std::uint64_t>()});
    for (const auto& s : j.at("samples"))
        r.samples.push_back({s.at("start_ns").get<std::uint64_t>(), s.at("end_ns").get<std::uint64_t>(),
            s.at("values").get<std::map<std::string, double>>()});
    return r;
}

const KernelEvidence& find(const ProfileEvidence& e, const std::string& name)
{
    for (const auto& k : e.kernels)
        if (k.name == name)
            return k;
    throw std::runtime_error("no kernel " + name);
}

} // namespace

class TestKernelEvidence : public QObject {
    Q_OBJECT

private slots:
    void samplesGoToTheKernelThatFillsThem()
    {
        // copy runs 0-3 ms, gemm 3-6 ms; one sample straddles both halves.
        const std::vector<KernelRecord> kernels {{"copy", 0, 3 * kMs}, {"gemm", 3 * kMs, 6 * kMs}};
        std::vector<PmWindow> samples {window(0, 80, 0), window(1, 84, 0), window(4, 20, 96), window(5, 18, 98)};
        samples.push_back({2 * kMs + kMs / 2, 3 * kMs + kMs / 2, {{"dram_pct", 50.0}, {"tensor_pct", 50.0}}});
        const auto e = attribute_kernels(kernels, samples, 6.0);
        QCOMPARE(e.samples_total, 5);
        QCOMPARE(e.samples_attributed, 4); // the straddling one is half copy, half gemm: neither is pure
        QCOMPARE(find(e, "copy").samples, 2);
        QCOMPARE(find(e, "copy").means.at("dram_pct"), 82.0);
        QCOMPARE(find(e, "gemm").means.at("tensor_pct"), 97.0);
        QCOMPARE(find(e, "gemm").coverage_pct, 100.0);
        QCOMPARE(e.launches, 2);
        QCOMPARE(*e.kernel_share_pct, 100.0);
        QCOMPARE(*e.launches_per_s, 2 / 6e-3);
    }

    void idleSamplesAndThinCoverageAreLeftOut()
    {
        // A 0.2 ms kernel in a 1 ms sample covers 20% of it (< 50%): its sample says little of it.
        const std::vector<KernelRecord> kernels {{"tiny", kMs / 10, kMs / 10 + kMs / 5}};
        const auto e = attribute_kernels(kernels, {window(0, 30, 0), window(5, 0, 0)}, 10.0);
        QCOMPARE(e.samples_attributed, 0);
        QCOMPARE(e.kernels.size(), size_t {1});
        QVERIFY(e.kernels.front().means.empty());
        const auto in = binding_input(e, 1, std::nullopt);
        QVERIFY(!in.dram_pct);
        QCOMPARE(*in.kernel_share_pct, 2.0);
        QCOMPARE(classify_binding(in).constraint, std::string()); // nothing measured per kernel
    }

    void concurrentKernelsCountOnceInTheShare()
    {
        const std::vector<KernelRecord> kernels {{"a", 0, 4 * kMs}, {"b", 2 * kMs, 6 * kMs}, {"a", 8 * kMs, 9 * kMs}};
        const auto e = attribute_kernels(kernels, {}, 10.0);
        QCOMPARE(e.kernel_busy_ms, 7.0);
        QCOMPARE(*e.kernel_share_pct, 70.0);
        QCOMPARE(e.kernels.front().name, std::string("a")); // 5 ms against 4
        QCOMPARE(e.kernels.front().launches, 2);
        QCOMPARE(e.kernels.front().median_ms, 2.5);
    }

    // Programmatic dependent launch: each kernel starts before its predecessor ends and waits, so
    // its record covers the wait. The time per launch is the union of the records, not their sum
    // (on the H200's decode the sum read 0.752 ms a launch against 0.511 timed).
    void overlappingLaunchesAreTimedOnce()
    {
        std::vector<KernelRecord> kernels;
        for (int i = 0; i < 4; ++i) // 1 ms launches back to back, each record starting 0.5 ms early
            kernels.push_back({"decode", static_cast<std::uint64_t>(i) * kMs - (i ? kMs / 2 : 0),
                static_cast<std::uint64_t>(i + 1) * kMs});
        const auto e = attribute_kernels(kernels, {}, 4.0);
        QCOMPARE(e.kernels.front().total_ms, 5.5);
        QCOMPARE(e.kernel_busy_ms, 4.0);
        const auto in = binding_input(e, 4, 1.0);
        QCOMPARE(*in.profiled_ms_per_launch, 1.0);
        QVERIFY(classify_binding(in).warnings.empty()); // the profile agrees with the timed run
    }

    void launchBoundStepsAreCalledSo()
    {
        // 2000 launches of 10 us in 100 ms: 20000 launches/s, kernels cover 20% of the step.
        std::vector<KernelRecord> kernels;
        for (int i = 0; i < 2000; ++i)
            kernels.push_back(
                {"small", static_cast<std::uint64_t>(i) * 50'000, static_cast<std::uint64_t>(i) * 50'000 + 10'000});
        const auto e = attribute_kernels(kernels, {}, 100.0);
        const auto in = binding_input(e, 2000, 0.05);
        QCOMPARE(*in.launches_per_s, 20000.0);
        QCOMPARE(*in.profiled_ms_per_launch, 0.01);
        const auto call = classify_binding(in);
        QCOMPARE(call.constraint, std::string("launch-overhead"));
        // The events time 0.05 ms a launch, the kernels 0.01 ms: the two views disagree.
        QVERIFY(std::any_of(call.warnings.begin(), call.warnings.end(),
            [](const std::string& w) { return w.find("disagree") != std::string::npos; }));
    }

    void recordedH200WindowsClassifyTheWayNcuDoes()
    {
        const auto r = load_recorded();
        const auto e = attribute_kernels(r.kernels, r.samples, 0);
        const auto& copy = find(e, "copy_float4");
        const auto& gemm = find(e, "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
        // ncu on the H200 (notes section 5): copy DRAM 83.0 %, occupancy 94.3 %; GEMM tensor 96.9 %.
        QVERIFY(copy.samples > 90);
        QVERIFY(std::abs(copy.means.at("dram_pct") - 83.03) < 1.0);
        QVERIFY(std::abs(copy.means.at("occupancy") - 94.27) < 1.0);
        QVERIFY(std::abs(gemm.means.at("tensor_pct") - 96.93) < 1.0);
        QVERIFY(copy.means.at("dram_pct") > gemm.means.at("dram_pct"));
        QVERIFY(gemm.means.at("tensor_pct") > copy.means.at("tensor_pct"));
        for (const auto& k : e.kernels) {
            ProfileEvidence one = e;
            one.kernels = {k};
            const auto call = classify_binding(binding_input(one, 0, std::nullopt));
            const std::string expected = k.name == "copy_float4" ? "memory-bandwidth" : "compute";
            QCOMPARE(call.constraint, expected);
        }
        const auto j = kernels_json(e);
        QCOMPARE(j.size(), size_t {4});
        QVERIFY(j.at(0).at("metrics").contains("dram_pct"));
    }
};

QTEST_GUILESS_MAIN(TestKernelEvidence)
#include "tst_kernel_evidence.moc"
