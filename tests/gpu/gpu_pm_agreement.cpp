// SPDX-License-Identifier: GPL-3.0-or-later
// The PM side of the ncu agreement check (scripts/gpu/ncu_agreement.sh, issue 30): every CUPTI
// lane (sampling/cupti_metrics.h) averaged over the samples inside a long back-to-back window of
// one kernel, for the copy, the cuBLASLt GEMM and the paged decode attention that the script then
// profiles with `ncu --clock-control none`. The first 3 samples and the last 2 of each window are
// cut (the window's ramp-up and tail, shared/notes/cupti-h200.md section 5). Prints one line:
//   BENCH {"what":"pm_lane_means","ncu_names":{lane: ncu metric},"units":{...},"kernels":{kernel:
//   {"samples": n, "means": {lane: mean}, "dropped": {lane: readings the range rule drops}}}}
// It also checks the lanes' range on real counters: no percentage lane may need the range rule on
// more than 1 % of a window's samples.
#include "gpu_plugin.h"
#include "sampling/cupti_metrics.h"
#include "sampling/cupti_source.h"
#include "sampling/queued_sampler.h"
#include "study/lane_range.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

using nlohmann::json;
using namespace kwb::gputest;

namespace {

struct Reading {
    double t_s;
    double value;
};

// Launches `launches` launches of `w` in `reps` back-to-back calls under PM sampling; the time
// per launch of those calls into `ms_per_launch` (the summary compares bytes per launch with ncu's
// when the two runs' clocks differ).
std::map<std::string, std::vector<Reading>> sampled(
    kwb::QueuedSampler& sampler, const Prepared& w, int launches, int reps, double& ms_per_launch)
{
    std::map<std::string, std::vector<Reading>> out;
    std::mutex m;
    sampler.start(
        [&](const kwb::MetricReading& r) {
            std::lock_guard lock(m);
            out[r.name].push_back({r.t_s, r.value});
        },
        0.001);
    double total_ms = 0;
    for (int i = 0; i < reps; ++i)
        total_ms += w.run(launches, false).value("total_ms", 0.0);
    sampler.stop();
    ms_per_launch = total_ms / (static_cast<double>(launches) * reps);
    return out;
}

json window_means(
    const std::map<std::string, std::vector<Reading>>& readings, const std::string& kernel, bool& in_range)
{
    json means = json::object(), dropped = json::object();
    size_t samples = 0;
    for (const auto& lane : kwb::kCuptiLanes) {
        auto it = readings.find(std::string(lane.lane));
        if (it == readings.end() || it->second.size() < 10)
            continue;
        auto v = it->second;
        std::sort(v.begin(), v.end(), [](const Reading& a, const Reading& b) { return a.t_s < b.t_s; });
        double sum = 0;
        size_t n = 0, out_of_range = 0;
        for (size_t i = 3; i + 2 < v.size(); ++i) {
            const auto checked = kwb::check_lane_reading(lane.unit, v[i].value);
            if (!checked.keep) {
                ++out_of_range;
                continue;
            }
            sum += checked.value;
            ++n;
        }
        means[std::string(lane.lane)] = n ? sum / static_cast<double>(n) : 0.0;
        dropped[std::string(lane.lane)] = out_of_range;
        samples = std::max(samples, n);
        if (out_of_range * 100 > v.size()) {
            std::printf("%s: %s needed the range rule on %zu of %zu samples\n", kernel.c_str(), lane.lane.data(),
                out_of_range, v.size());
            in_range = false;
        }
    }
    return {{"samples", samples}, {"means", means}, {"dropped", dropped}};
}

} // namespace

int main()
{
    const auto plugin = require_plugin();
    auto source = std::make_unique<kwb::CuptiSource>(plugin.api, 0);
    if (const std::string why = source->unavailable_reason(); !why.empty()) {
        if (why.find("ERR_NVGPUCTRPERM") != std::string::npos)
            skip(why);
        std::printf("FAILED: a GPU is usable but CUPTI PM sampling is not: %s\n", why.c_str());
        return 1;
    }
    kwb::QueuedSampler sampler(std::move(source));
    // The same kernels and sizes ncu_agreement.sh profiles through kwb run. The decode without
    // programmatic dependent launch: ncu serialises launches, so a kernel overlapping the next one's
    // start (PDL) read SMs active 99.9 % back to back against ncu's 74.5 % for the same kernel.
    struct Case {
        const char* name;
        Prepared w;
        int launches, reps;
    };
    Case cases[] = {
        {"copy", Prepared(plugin, "bandwidth", {{"op", "copy"}, {"bytes_mib", 2048}, {"vector_width", 4}}), 100, 2},
        {"gemm", Prepared(plugin, "gemm", {{"m", 8192}, {"n", 8192}, {"k", 8192}, {"impl", "cublaslt"}}), 100, 2},
        {"decode",
            Prepared(plugin, "attention_decode",
                {{"batch", 64}, {"context", 8192}, {"length_spread", 0}, {"stages", 2}, {"impl", "mma"}, {"pdl", 0},
                    {"seed", 1}}),
            200, 2},
    };
    json names = json::object(), units = json::object(), kernels = json::object();
    for (const auto& lane : kwb::kCuptiLanes) {
        names[std::string(lane.lane)] = lane.ncu;
        units[std::string(lane.lane)] = lane.unit;
    }
    bool in_range = true;
    for (auto& c : cases) {
        KWB_CHECK(c.w);
        if (!c.w)
            continue;
        c.w.run(5, false); // warm
        double ms_per_launch = 0;
        kernels[c.name] = window_means(sampled(sampler, c.w, c.launches, c.reps, ms_per_launch), c.name, in_range);
        kernels[c.name]["ms_per_launch"] = ms_per_launch;
        KWB_CHECK(kernels[c.name]["samples"].get<size_t>() > 20);
    }
    std::printf("BENCH %s\n",
        json({{"what", "pm_lane_means"}, {"ncu_names", names}, {"units", units}, {"kernels", kernels}}).dump().c_str());
    KWB_CHECK(in_range);
    return finish("gpu_pm_agreement");
}
