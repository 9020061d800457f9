// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The runner tests' harness: studies of the fake workload, a recording observer, a sampler that
// reads from its own thread, and the Runner wired to the fake clock.
#include "fake_workload.h"
#include "run/runner.h"
#include "study/study.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace kwb;
using namespace kwb::test;

namespace {

inline Study make_study(double treatment_speed, RunPlan plan, nlohmann::json extra = nlohmann::json::object())
{
    Study s;
    s.name = "fake";
    s.target.metric = "time_ms";
    Experiment e;
    e.id = "ab-1";
    e.workload = "fake";
    e.metric = "time_ms";
    nlohmann::json base = extra, treat = extra;
    base["speed"] = 1.0;
    treat["speed"] = treatment_speed;
    e.arms = {{"baseline", base}, {"treatment", treat}};
    e.plan = plan;
    s.experiments.push_back(e);
    return s;
}

inline RunPlan count_plan(int runs, int warmups = 1)
{
    RunPlan p;
    p.runs_per_arm = runs;
    p.warmup_runs = warmups;
    return p;
}

struct Recorder : RunObserver {
    std::vector<std::string> events;
    std::vector<Sample> samples;
    std::vector<RunProgress> progress;
    std::vector<MetricReading> metrics;
    RunStart start;
    std::function<void(const Sample&)> after_sample;

    void on_start(const Experiment&, const RunStart& s) override
    {
        events.push_back("start");
        start = s;
    }
    void on_sample(const Experiment&, const Sample& s, double) override
    {
        events.push_back("sample");
        samples.push_back(s);
        if (after_sample)
            after_sample(s);
    }
    void on_metric(const MetricReading& r) override { metrics.push_back(r); }
    void on_progress(const Experiment&, const RunProgress& p) override
    {
        events.push_back("progress");
        progress.push_back(p);
    }
    void on_verdict(const Experiment&) override { events.push_back("verdict"); }
    void on_error(const std::string& m, bool) override { events.push_back("error: " + m); }
};

// Emits three readings from its own thread, as a real sampler would.
class FakeSampler : public Sampler {
public:
    std::string name() const override { return "fake"; }
    std::string unavailable_reason() const override { return {}; }
    void start(MetricSink sink, double) override
    {
        thread_ = std::thread([sink] {
            for (int i = 0; i < 3; ++i)
                sink({0.1 * i, "cpu_util", 50.0 + i, "%"});
        });
    }
    void stop() override
    {
        if (thread_.joinable())
            thread_.join();
    }

private:
    std::thread thread_;
};

struct Harness {
    FakeClock clock;
    FakeWorkload workload {&clock};
    Recorder recorder;
    std::atomic<bool> cancel {false};
    std::vector<size_t> checkpoint_sizes;
    std::vector<Sampler*> samplers;

    RunOutcome run(Study& s, Experiment& e)
    {
        RunnerOptions o;
        o.cancel = &cancel;
        o.observer = &recorder;
        o.clock = [this] { return clock(); };
        o.samplers = samplers;
        o.checkpoint = [this, &e] { checkpoint_sizes.push_back(e.samples.size()); };
        Runner runner(workload, o);
        return runner.run(s, e);
    }
};

inline std::string arm_letters(const Experiment& e)
{
    std::vector<const Sample*> judged;
    for (const auto& s : e.samples)
        if (!s.warmup)
            judged.push_back(&s);
    std::sort(judged.begin(), judged.end(), [](auto* a, auto* b) { return a->position < b->position; });
    std::string out;
    for (size_t i = 0; i < judged.size(); ++i) {
        if (judged[i]->position != static_cast<int>(i))
            return "position gap at " + std::to_string(i);
        out += judged[i]->arm == "baseline" ? 'A' : 'B';
    }
    return out;
}

} // namespace
