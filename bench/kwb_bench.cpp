// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmarks of the engine's hot paths: the verdict (with its 10,000-resample bootstrap), and a
// study's atomic save and load at a size a long campaign reaches. Each case runs `reps` times;
// the report gives the median and the interquartile range, in milliseconds.
#include "study/study_file.h"
#include "verdict/verdict.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <unistd.h>

namespace {

struct Timing {
    int n = 0;
    double median_ms = 0, p25_ms = 0, p75_ms = 0, min_ms = 0;
};

double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const double pos = q * double(v.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

Timing measure(int reps, const std::function<void()>& body)
{
    body(); // warm-up: page faults and first-touch allocations are not what we measure
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return {reps, quantile(ms, 0.5), quantile(ms, 0.25), quantile(ms, 0.75), *std::min_element(ms.begin(), ms.end())};
}

std::vector<double> lognormal(int n, double mean, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> d(std::log(mean), 0.02);
    std::vector<double> v(n);
    for (auto& x : v)
        x = d(rng);
    return v;
}

kwb::Study big_study(int samples)
{
    kwb::Study s;
    s.name = "bench";
    kwb::Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"block", 32}}}, {"treatment", {{"block", 128}}}};
    std::mt19937_64 rng(7);
    std::normal_distribution<double> d(10.0, 0.2);
    for (int i = 0; i < samples; ++i) {
        kwb::Sample x;
        x.arm = i % 2 ? "treatment" : "baseline";
        x.rep = i / 2;
        x.position = i;
        x.started_at = "2026-11-30T00:00:00.000Z";
        x.duration_s = 0.1;
        x.metrics = {{"time_ms", d(rng)}, {"gflops", d(rng) * 10}};
        e.samples.push_back(x);
    }
    kwb::SamplerLane lane {"cpu_util", "%", {}, {}};
    for (int i = 0; i < samples * 4; ++i) {
        lane.t_s.push_back(i * 0.25);
        lane.values.push_back(d(rng) * 10);
    }
    e.lanes.push_back(lane);
    s.experiments.push_back(e);
    return s;
}

nlohmann::json row(const std::string& name, const Timing& t)
{
    return {{"case", name}, {"reps", t.n}, {"median_ms", t.median_ms}, {"p25_ms", t.p25_ms}, {"p75_ms", t.p75_ms},
        {"min_ms", t.min_ms}};
}

} // namespace

int main(int argc, char** argv)
{
    const bool json = argc > 1 && std::string(argv[1]) == "--json";
    nlohmann::json rows = nlohmann::json::array();
    const auto profile = kwb::make_profile("generic", kwb::Direction::Lower);
    for (int n : {5, 30, 200, 1000}) {
        const auto b = lognormal(n, 10.0, 1), t = lognormal(n, 9.0, 2);
        rows.push_back(row(fmt::format("verdict n={} per arm (unpaired)", n),
            measure(20, [&] { (void)kwb::judge_samples(b, t, profile, false); })));
        rows.push_back(row(fmt::format("verdict n={} per arm (paired)", n),
            measure(20, [&] { (void)kwb::judge_samples(b, t, profile, true); })));
    }
    const auto path = std::filesystem::temp_directory_path() / fmt::format("kwb_bench_{}.json", ::getpid());
    for (int samples : {100, 10000}) {
        auto study = big_study(samples);
        rows.push_back(row(fmt::format("save study, {} samples + {} lane points", samples, samples * 4),
            measure(10, [&] { kwb::save_study(study, path); })));
        rows.push_back(row(fmt::format("load study, {} samples + {} lane points", samples, samples * 4),
            measure(10, [&] { (void)kwb::load_study(path); })));
    }
    std::filesystem::remove(path);
    if (json) {
        std::printf("%s\n", nlohmann::json {{"benchmarks", rows}}.dump(2).c_str());
        return 0;
    }
    for (const auto& r : rows)
        fmt::print("{:<55} median {:9.3f} ms  IQR [{:.3f}, {:.3f}]  min {:.3f}  (n={})\n", r["case"].get<std::string>(),
            r["median_ms"].get<double>(), r["p25_ms"].get<double>(), r["p75_ms"].get<double>(),
            r["min_ms"].get<double>(), r["reps"].get<int>());
    return 0;
}
