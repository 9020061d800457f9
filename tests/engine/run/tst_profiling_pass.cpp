// SPDX-License-Identifier: GPL-3.0-or-later
// The profiling pass without a GPU: a scripted plugin (CUPTI status, PM samples, Activity
// records, timestamps) and the deterministic fake workload. Checks the full-counter path (the
// stale first sample dropped, samples attributed, memory-bound called, the profiled-vs-timed
// disagreement warned), the permission fallback (ERR_NVGPUCTRPERM: PM sampling never opened, the
// line with its fix stamped, Activity still used), no plugin at all (event timing only), the CPU
// path (procfs, launch-overhead does not apply) and what store_binding writes.
#include "../../any_contains.h"
#include "fake_workload.h"
#include "run/profiling_pass.h"
#include "sampling/cupti_metrics.h"

#include <QTest>

using namespace kwb;
using kwbtest::any_contains;
using namespace kwb::test;

namespace {

constexpr unsigned long long kMs = 1'000'000;

struct Script {
    std::string status; // cupti_status's line
    int pm_opens = 0;
    int timestamp_calls = 0;
    bool decoded = false;
    std::string activity;
} g;

const char* fake_status(int)
{
    return g.status.c_str();
}
KwbPmSampler* fake_pm_open(int, const char*, unsigned long long, const char**)
{
    ++g.pm_opens;
    static int token;
    return reinterpret_cast<KwbPmSampler*>(&token);
}
int fake_pm_start(KwbPmSampler*, const char**)
{
    return 0;
}
int fake_pm_stop(KwbPmSampler*, const char**)
{
    return 0;
}
// One stale sample reaching back before the start, then 1 ms samples from 3 to 80 ms.
int fake_pm_decode(KwbPmSampler*, KwbPmSample* out, int capacity, const char**)
{
    if (g.decoded)
        return 0;
    g.decoded = true;
    int n = 0;
    const auto lane = [](std::string_view expression) { return cupti_collected_index(expression).value(); };
    const auto put = [&](unsigned long long start, unsigned long long end, double dram) {
        if (n >= capacity)
            return;
        KwbPmSample s {};
        s.start_ns = start;
        s.end_ns = end;
        s.values[lane("dram__throughput.avg.pct_of_peak_sustained_elapsed")] = dram;
        s.values[lane("sm__warps_active_realtime.avg.pct_of_peak_sustained_active")] = 90;
        s.values[lane("TPC.TriageCompute.sm__cycles_active.avg")] = 1000; // fma_pct 1, tensor_pct 0
        s.values[lane("TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg")] = 20;
        s.values[lane("TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.peak_sustained")] = 2;
        s.values[lane("TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.peak_sustained")] = 1;
        s.values[lane("sm__cycles_active.avg.pct_of_peak_sustained_elapsed")] = 97;
        out[n++] = s;
    };
    put(0, 3 * kMs, 5); // stale: starts before the session's start (1 ms)
    for (unsigned long long t = 3; t < 50; ++t)
        put(t * kMs, (t + 1) * kMs, 85);
    return n;
}
void fake_pm_close(KwbPmSampler*)
{
}
// 1 ms: the collector's start; 2 ms: the pass's start; 102 ms: its end.
unsigned long long fake_timestamp()
{
    const int call = g.timestamp_calls++;
    return call == 0 ? 1 * kMs : call == 1 ? 2 * kMs : 102 * kMs;
}
int fake_activity_begin(const char**)
{
    return 0;
}
// Ten 8 ms launches of "copy" from 2 ms: 80 ms of 100.
const char* fake_activity_end()
{
    nlohmann::json kernels = nlohmann::json::array();
    for (unsigned long long i = 0; i < 10; ++i)
        kernels.push_back(
            {{"name", "copy"}, {"start_ns", 2 * kMs + i * 8 * kMs}, {"end_ns", 2 * kMs + (i + 1) * 8 * kMs}});
    g.activity = nlohmann::json {{"kernels", kernels}}.dump();
    return g.activity.c_str();
}

KwbGpuBackendApi fake_api()
{
    KwbGpuBackendApi api {};
    api.abi_version = KWB_GPU_BACKEND_ABI_VERSION;
    api.cupti_status = fake_status;
    api.pm_open = fake_pm_open;
    api.pm_start = fake_pm_start;
    api.pm_stop = fake_pm_stop;
    api.pm_decode = fake_pm_decode;
    api.pm_close = fake_pm_close;
    api.gpu_timestamp_ns = fake_timestamp;
    api.activity_begin = fake_activity_begin;
    api.activity_end = fake_activity_end;
    return api;
}

Arm launchable_arm()
{
    return {"baseline", {{"launchable", 1}, {"jitter", 0.0}, {"speed", 1.0}}};
}

} // namespace

class TestProfilingPass : public QObject {
    Q_OBJECT
private slots:
    void init() { g = Script {}; }

    void countersCallTheCopyMemoryBound()
    {
        FakeWorkload w(nullptr);
        const auto api = fake_api();
        ProfilePassOptions o;
        o.api = &api;
        o.profile_ms = 0; // exactly the 3 minimum repetitions
        const auto r = profile_arm(w, launchable_arm(), Backend::Cuda, o);
        QCOMPARE(r.source, std::string("cupti"));
        QVERIFY(!any_contains(r.limitations, "counters")); // (NVML may be missing here: that is its own line)
        QCOMPARE(r.evidence.samples_total, 47); // the stale sample never reached the attribution
        QCOMPARE(r.evidence.kernels.front().samples, 47);
        QCOMPARE(r.evidence.kernels.front().means.at("dram_pct"), 85.0);
        QCOMPARE(*r.input.kernel_share_pct, 80.0);
        QCOMPARE(*r.input.launches_per_s, 100.0);
        QCOMPARE(r.call.constraint, std::string("memory-bandwidth"));
        // Timed: 10 ms a launch (the fake); profiled: 80 ms of kernels over 3 x 5 launches.
        QCOMPARE(*r.input.timed_ms_per_launch, 10.0);
        QVERIFY(std::abs(*r.input.profiled_ms_per_launch - 80.0 / 15) < 1e-9);
        QVERIFY(any_contains(r.call.warnings, "disagree"));
    }

    void restrictedCountersFallBackToActivity()
    {
        g.status = "cuptiPmSamplingGetCounterAvailability: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35): GPU performance "
                   "counters are restricted to admin users (ERR_NVGPUCTRPERM); run as root";
        g.timestamp_calls = 1; // no PM collector asks for the time: the pass's start is the first call
        FakeWorkload w(nullptr);
        const auto api = fake_api();
        ProfilePassOptions o;
        o.api = &api;
        o.profile_ms = 0;
        const auto r = profile_arm(w, launchable_arm(), Backend::Cuda, o);
        QCOMPARE(g.pm_opens, 0); // detected before: PM sampling never configured
        QCOMPARE(r.source, std::string("activity"));
        QVERIFY(any_contains(r.limitations, "ERR_NVGPUCTRPERM"));
        QVERIFY(any_contains(r.limitations, "run as root"));
        QVERIFY(!r.input.dram_pct);
        QCOMPARE(*r.input.kernel_share_pct, 80.0); // Activity still gives the step
        QCOMPARE(r.call.constraint, std::string()); // nothing per kernel to call it from
    }

    void noPluginIsEventTimingOnly()
    {
        FakeWorkload w(nullptr);
        ProfilePassOptions o;
        o.api_reason = "no NVIDIA driver (libcuda.so.1 not found)";
        o.profile_ms = 0;
        const auto r = profile_arm(w, launchable_arm(), Backend::Cuda, o);
        QCOMPARE(r.source, std::string("events"));
        QVERIFY(any_contains(r.limitations, "libcuda.so.1"));
        QCOMPARE(*r.input.timed_ms_per_launch, 10.0);
        QVERIFY(!r.input.launches_per_s);
    }

    void cpuProfileIsProcfsAndTiming()
    {
        FakeWorkload w(nullptr);
        ProfilePassOptions o;
        o.profile_ms = 0;
        const auto r = profile_arm(w, launchable_arm(), Backend::Cpu, o);
        QCOMPARE(r.source, std::string("procfs"));
        QVERIFY(any_contains(r.limitations, "launch-overhead does not apply"));
        QCOMPARE(r.call.constraint, std::string());
        QCOMPARE(r.extra.at("ms_per_iteration").get<double>(), 10.0);
        QVERIFY(r.extra.contains("process_cpu_pct"));
        QCOMPARE(r.extra.at("repetitions").get<int>(), 3);
    }

    void storeBindingWritesTheSection()
    {
        FakeWorkload w(nullptr);
        const auto api = fake_api();
        ProfilePassOptions o;
        o.api = &api;
        o.profile_ms = 0;
        const auto r = profile_arm(w, launchable_arm(), Backend::Cuda, o);
        BindingEvidence b;
        b.notes = "typed by hand";
        b.constraint = "smem";
        store_binding(b, r, "ab-1", "baseline", o.thresholds, "2026-11-30T23:00:00.000Z");
        QCOMPARE(b.constraint, std::string("memory-bandwidth"));
        QCOMPARE(b.notes, std::string("typed by hand"));
        QVERIFY(!b.axis.empty());
        QCOMPARE(b.source, std::string("cupti"));
        QCOMPARE(b.experiment, std::string("ab-1"));
        QCOMPARE(b.thresholds.at("dram_bound_pct").get<double>(), 80.0);
        QCOMPARE(b.kernels.size(), size_t {1});
        QCOMPARE(b.metrics.at("dram_pct").get<double>(), 85.0);
        QVERIFY(!b.warnings.empty());
    }
};

QTEST_GUILESS_MAIN(TestProfilingPass)
#include "tst_profiling_pass.moc"
