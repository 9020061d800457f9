// SPDX-License-Identifier: GPL-3.0-or-later
// The range-profile pass without a GPU (run/range_profile_pass.h): a scripted range_profile entry
// stands in for the plugin. Checks which arms it reaches (embedded arms on the CUDA backend only;
// command arms, the CPU backend and a missing plugin give the reason in the arm's place), that each
// arm is profiled with its resolved parameters (defaults filled in), and the notes for a failed
// output check and a cold-cache arm.
#include "run/range_profile_pass.h"
#include "workloads/command/command_spec.h"
#include "workloads/descriptions/builtin_descriptions.h"

#include <QTest>

using namespace kwb;
using nlohmann::json;

namespace {

// The gemm description, never prepared here.
class DescribedGemm final : public DescribedWorkload {
public:
    DescribedGemm()
        : DescribedWorkload(gemm_description())
    {
    }
    std::unique_ptr<PreparedWorkload> prepare(const json&, Backend) const override
    {
        throw WorkloadError("not prepared in this test");
    }
};

std::vector<json> g_calls; // the params of each range_profile call
bool g_wrong = false; // the reply's check fails

const char* fake_range_profile(const char* workload, const char* params, int device, int launches, const char* metrics)
{
    static std::string text;
    auto p = json::parse(params);
    p["_workload"] = workload;
    p["_device"] = device;
    p["_launches"] = launches;
    p["_metrics"] = json::parse(metrics);
    g_calls.push_back(p);
    const double sectors = p.value("block_m", 0) == 64 ? 3e6 : 2e6;
    json ranges = json::array();
    for (int i = 0; i < launches; ++i)
        ranges.push_back({1e6, 100.0 + i, 10, sectors + i, 50, 40});
    text = json {{"metrics", json::parse(metrics)}, {"passes", 2}, {"launches", launches},
        {"kernels", json::array({{{"name", "k"}, {"registers_per_thread", 128}, {"dynamic_smem_bytes", 49152}}})},
        {"ranges", ranges}, {"verified", {{"ok", !g_wrong}, {"compared", "tiled vs cuBLASLt"}}}}
               .dump();
    return text.c_str();
}

const KwbGpuRangeProfilerApi kFake {KWB_GPU_RANGE_PROFILER_ABI_VERSION, &fake_range_profile};

Experiment tiles(const char* cache = "hot")
{
    Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.arms = {Arm {}, Arm {}};
    e.arms[0].name = "baseline";
    e.arms[0].params = {{"impl", "tiled"}, {"block_m", 64}, {"cache", cache}};
    e.arms[1].name = "treatment";
    e.arms[1].params = {{"impl", "tiled"}, {"block_m", 128}, {"cache", cache}};
    return e;
}

} // namespace

class TestRangeProfilePass : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        g_calls.clear();
        g_wrong = false;
    }

    void profilesEachEmbeddedArmWithItsResolvedParams()
    {
        const DescribedGemm gemm;
        RangeProfilePassOptions o;
        o.device = 1;
        o.launches = 4;
        o.api = &kFake;
        const auto arms = range_profile_arms(gemm, tiles(), Backend::Cuda, o);
        QCOMPARE(arms.size(), std::size_t {2});
        QCOMPARE(g_calls.size(), std::size_t {2});
        QCOMPARE(g_calls[0].at("_workload").get<std::string>(), std::string("gemm"));
        QCOMPARE(g_calls[0].at("_device").get<int>(), 1);
        QCOMPARE(g_calls[0].at("_launches").get<int>(), 4);
        QCOMPARE(g_calls[0].at("_metrics").get<std::vector<std::string>>(), range_profiler_cupti_names());
        QCOMPARE(g_calls[1].at("block_m").get<int>(), 128);
        QCOMPARE(g_calls[1].at("block_n").get<int>(), 128); // a default, filled in
        for (const auto& a : arms) {
            QVERIFY(a.unavailable.empty());
            QCOMPARE(a.launches.size(), std::size_t {4});
            QCOMPARE(a.passes, 2);
            QVERIFY(a.notes.empty());
        }
        QCOMPARE(per_launch_values(arms[0], {}).at("l2_sectors").front(), 3e6);
        QCOMPARE(per_launch_values(arms[1], {}).at("registers_per_thread").front(), 128.0);
    }

    void notesAFailedCheckAndAColdCache()
    {
        g_wrong = true;
        const DescribedGemm gemm;
        RangeProfilePassOptions o;
        o.api = &kFake;
        const auto arms = range_profile_arms(gemm, tiles("cold"), Backend::Cuda, o);
        QCOMPARE(arms[0].notes.size(), std::size_t {2});
        QVERIFY(arms[0].notes[0].find("its output check failed (tiled vs cuBLASLt)") == 0);
        QVERIFY(arms[0].notes[1].find("cache=cold: profiled warm") == 0);
    }

    void armsOutOfReachSayWhy()
    {
        const DescribedGemm gemm;
        RangeProfilePassOptions o;
        o.api = &kFake;
        for (const auto& a : range_profile_arms(gemm, tiles(), Backend::Cpu, o))
            QVERIFY(a.unavailable.find("the range profiler needs the CUDA backend") == 0);

        Experiment commands = tiles();
        commands.workload = command::kCommandWorkload;
        for (const auto& a : range_profile_arms(gemm, commands, Backend::Cuda, o))
            QVERIFY(a.unavailable.find("a command arm: its kernels run in another process") == 0);

        Experiment workers = tiles();
        workers.workload = "worker";
        for (const auto& a : range_profile_arms(gemm, workers, Backend::Cuda, o))
            QVERIFY(a.unavailable.find("a worker arm") == 0);
        QVERIFY(g_calls.empty());

        RangeProfilePassOptions none;
        none.api_reason = "GPU backend plugin x has no range profiler";
        for (const auto& a : range_profile_arms(gemm, tiles(), Backend::Cuda, none))
            QCOMPARE(a.unavailable, none.api_reason);
    }
};

QTEST_GUILESS_MAIN(TestRangeProfilePass)
#include "tst_range_profile_pass.moc"
