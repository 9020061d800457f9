// SPDX-License-Identifier: GPL-3.0-or-later
// CUPTI PM sampling through the plugin on a real GPU: a 2 GiB copy and a bf16 8192^3 cuBLASLt
// GEMM must rank the right way (copy: higher DRAM %; GEMM: higher tensor %), samples arrive at
// the configured interval, and kernel activity records come back one per launch. It also prints
// the figures of bench/results (overhead of sampling on vs off, interleaved and judged, on the copy
// and on the GEMM beside its A/A; achieved sample rate; the latency from a kernel's launch to its
// first reading), as JSON lines starting with "BENCH ".
#include "gpu_plugin.h"
#include "sampling/cupti_metrics.h"
#include "sampling/cupti_source.h"
#include "sampling/queued_sampler.h"
#include "verdict/verdict.h"
#include "verdict/verdict_json.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using nlohmann::json;
using namespace kwb::gputest;

namespace {

struct Window {
    std::map<std::string, std::vector<double>> values;
    double span_s = 0;
};

double mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Runs `launches` launches `reps` times under PM sampling and collects every reading.
Window sampled(kwb::QueuedSampler& sampler, const Prepared& w, int launches, int reps)
{
    Window win;
    std::mutex m;
    sampler.start(
        [&](const kwb::MetricReading& r) {
            std::lock_guard lock(m);
            win.values[r.name].push_back(r.value);
            win.span_s = std::max(win.span_s, r.t_s);
        },
        0.001);
    for (int i = 0; i < reps; ++i)
        w.run(launches, false);
    sampler.stop();
    return win;
}

// Two arms of `reps` windows of `launches` launches each, ABBA-interleaved: sampling off vs on
// (with_sampling), or off vs off (an A/A of the same schedule).
std::pair<std::vector<double>, std::vector<double>> interleaved(
    kwb::QueuedSampler& sampler, const Prepared& w, int launches, int reps, bool with_sampling)
{
    std::vector<double> a, b;
    for (int block = 0; block < reps; ++block) {
        for (int k = 0; k < 2; ++k) {
            const bool second = (block % 2 == 0) == (k == 1);
            const bool sampling = with_sampling && second;
            if (sampling)
                sampler.start([](const kwb::MetricReading&) {}, 0.001);
            const double ms = w.run(launches, false).at("total_ms").get<double>();
            if (sampling)
                sampler.stop();
            (second ? b : a).push_back(ms);
        }
    }
    return {a, b};
}

// Prints the arms and the engine's sample verdict (generic profile, time: lower is better) as a
// BENCH line; true when the verdict is neither LICENSE nor KILL.
bool report_overhead(const char* what, const std::pair<std::vector<double>, std::vector<double>>& arms)
{
    const auto v
        = kwb::judge_samples(arms.first, arms.second, kwb::make_profile("generic", kwb::Direction::Lower), false);
    const json verdict = kwb::to_json(v);
    std::printf("BENCH {\"what\":\"%s\",\"off_ms\":%s,\"on_ms\":%s,\"verdict\":%s,\"delta_pct\":%s,"
                "\"ci95_delta_pct\":%s,\"sigma_pct\":%s}\n",
        what, json(arms.first).dump().c_str(), json(arms.second).dump().c_str(), verdict.at("verdict").dump().c_str(),
        verdict.value("delta_pct", json()).dump().c_str(), verdict.value("ci95_delta_pct", json()).dump().c_str(),
        verdict.value("sigma_pct", json()).dump().c_str());
    return v.word != kwb::VerdictWord::License && v.word != kwb::VerdictWord::Kill;
}

// From a copy's launch on an idle GPU to the first PM reading that shows it (DRAM above 20%)
// reaching the sampler's consumer, host clock, n = 10. The window adds its display timer's
// period and one frame on top (docs).
void report_first_sample_latency(kwb::QueuedSampler& sampler, const Prepared& copy)
{
    using clock = std::chrono::steady_clock;
    std::vector<double> latency_ms;
    for (int i = 0; i < 10; ++i) {
        std::atomic<long long> first_ns {-1};
        std::atomic<long long> launched_ns {-1};
        sampler.start(
            [&](const kwb::MetricReading& r) {
                const long long t0 = launched_ns.load();
                if (t0 >= 0 && r.name == "dram_pct" && r.value > 20 && first_ns.load() < 0)
                    first_ns = clock::now().time_since_epoch().count() - t0;
            },
            0.001);
        std::this_thread::sleep_for(std::chrono::milliseconds(50)); // idle: the sampler is running
        launched_ns = clock::now().time_since_epoch().count();
        copy.run(20, false);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        sampler.stop();
        if (first_ns.load() >= 0)
            latency_ms.push_back(static_cast<double>(first_ns.load()) / 1e6);
    }
    std::printf("BENCH {\"what\":\"first_sample_latency_ms\",\"n\":%zu,\"values\":%s}\n", latency_ms.size(),
        json(latency_ms).dump().c_str());
    KWB_CHECK(latency_ms.size() == 10);
}

} // namespace

int main()
{
    const auto plugin = require_plugin();
    const auto* api = plugin.api;
    auto source = std::make_unique<kwb::CuptiSource>(api, 0);
    if (const std::string why = source->unavailable_reason(); !why.empty()) {
        // Counters restricted to admins is the machine's setting, not a bug: skip with the reason.
        // Anything else on a machine with a usable GPU (require_plugin found one) is a defect.
        if (why.find("ERR_NVGPUCTRPERM") != std::string::npos)
            skip(why);
        std::printf("FAILED: a GPU is usable but CUPTI PM sampling is not: %s\n", why.c_str());
        return 1;
    }
    kwb::QueuedSampler sampler(std::move(source));

    Prepared copy(plugin, "bandwidth", {{"op", "copy"}, {"bytes_mib", 2048}, {"vector_width", 4}});
    Prepared gemm(plugin, "gemm", {{"m", 8192}, {"n", 8192}, {"k", 8192}, {"impl", "cublaslt"}});
    KWB_CHECK(copy);
    if (!copy)
        return finish("gpu_pm_sampling");
    copy.run(5, false); // warm
    const auto c = sampled(sampler, copy, 20, 10);
    std::printf("copy: %zu dram samples over %.3f s, dram %.1f %%, tensor %.1f %%, occupancy %.1f %%\n",
        c.values.count("dram_pct") ? c.values.at("dram_pct").size() : 0, c.span_s,
        mean(c.values.count("dram_pct") ? c.values.at("dram_pct") : std::vector<double> {}),
        mean(c.values.count("tensor_pct") ? c.values.at("tensor_pct") : std::vector<double> {}),
        mean(c.values.count("occupancy") ? c.values.at("occupancy") : std::vector<double> {}));
    KWB_CHECK(c.values.count("dram_pct") && c.values.at("dram_pct").size() > 50);
    const double rate = c.span_s > 0 && c.values.count("dram_pct") ? c.values.at("dram_pct").size() / c.span_s : 0;
    std::printf(
        "BENCH {\"what\":\"achieved_sample_rate\",\"interval_ms\":1,\"samples\":%zu,\"span_s\":%.4f,\"per_s\":%.1f,"
        "\"overflow\":%llu,\"error\":%s}\n",
        c.values.count("dram_pct") ? c.values.at("dram_pct").size() : 0, c.span_s, rate, sampler.overflow(),
        json(sampler.error()).dump().c_str());

    if (gemm) {
        gemm.run(3, false);
        const auto g = sampled(sampler, gemm, 20, 5);
        const auto get = [](const Window& w, const char* n) { return w.values.count(n) ? mean(w.values.at(n)) : -1.0; };
        std::printf("gemm: dram %.1f %%, tensor %.1f %%, occupancy %.1f %%, sm %.1f %%\n", get(g, "dram_pct"),
            get(g, "tensor_pct"), get(g, "occupancy"), get(g, "sm_pct"));
        KWB_CHECK(get(c, "dram_pct") > get(g, "dram_pct"));
        KWB_CHECK(get(g, "tensor_pct") > get(c, "tensor_pct"));
        std::printf("BENCH "
                    "{\"what\":\"pm_means\",\"copy\":{\"dram_pct\":%.2f,\"occupancy\":%.2f,\"sm_pct\":%.2f,\"tensor_"
                    "pct\":%.2f},"
                    "\"gemm\":{\"dram_pct\":%.2f,\"occupancy\":%.2f,\"sm_pct\":%.2f,\"tensor_pct\":%.2f}}\n",
            get(c, "dram_pct"), get(c, "occupancy"), get(c, "sm_pct"), get(c, "tensor_pct"), get(g, "dram_pct"),
            get(g, "occupancy"), get(g, "sm_pct"), get(g, "tensor_pct"));
    } else {
        std::printf("gemm not prepared: %s\n", gemm.error.c_str());
        KWB_CHECK(gemm);
    }

    // Overhead: sampling off vs on, ABBA-interleaved, judged by the engine's verdict as any A/B
    // is (sampling must be NOISE, never a LICENSE- or KILL-sized effect); on the GEMM beside an
    // off-vs-off A/A of the same length, whose spread is the power-capped clock's.
    const auto copy_ab = interleaved(sampler, copy, 100, 10, true);
    KWB_CHECK(report_overhead("overhead_copy_2GiB_x100", copy_ab));
    if (gemm) {
        const auto gemm_ab = interleaved(sampler, gemm, 20, 10, true);
        const auto gemm_aa = interleaved(sampler, gemm, 20, 10, false);
        KWB_CHECK(report_overhead("overhead_gemm_8192_x20", gemm_ab));
        report_overhead("aa_gemm_8192_x20_sampling_off", gemm_aa);
    }
    report_first_sample_latency(sampler, copy);

    // Kernel activity: one record per launch.
    const char* error = nullptr;
    if (api->activity_begin(&error) == 0) {
        copy.run(10, false);
        const auto records = json::parse(api->activity_end());
        const size_t n = records.value("kernels", json::array()).size();
        std::printf("activity: %zu kernel records for 10 launches; %s\n", n,
            n ? records.at("kernels").at(0).dump().c_str() : records.dump().c_str());
        KWB_CHECK(n >= 10);
    } else {
        std::printf("activity_begin failed: %s\n", error);
        KWB_CHECK(false);
    }
    return finish("gpu_pm_sampling");
}
