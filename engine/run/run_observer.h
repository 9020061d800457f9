// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sampling/sampler.h"
#include "study/study.h"

#include <optional>
#include <string>
#include <vector>

// What a run tells the outside while it goes: the CLI's JSON-lines writer (the progress stream of
// docs/progress-stream.md) and its progress bar are two implementations; tests record events.
//
// Threading: the Runner serialises every call (live sampler readings arrive from sampler threads
// but are delivered under the runner's lock), so an observer needs no locking of its own. Calls
// must return quickly; an observer that throws aborts the run like a workload error.
namespace kwb {

// The most blocks RunStart::order lists: a plan of 100000 runs per arm should not make a
// multi-megabyte first line; the order continues by the same rule (run/schedule.h).
inline constexpr int kMaxAnnouncedBlocks = 512;

struct RunStart {
    std::string backend; // the backend actually used: "cpu" or "cuda"
    std::vector<std::string> order; // arm names of the planned runs of the order, in run order
    bool order_truncated = false; // true when the plan has more blocks than `order` lists
    int runs_per_arm = 0; // the plan's count (count), cap (decision) or first blocks (duration)
    int done_before = 0; // runs of the order kept from an earlier, stopped session
};

struct RunProgress {
    int done = 0; // runs of the order finished (all sessions; warm-ups excluded)
    int planned = 0; // runs of the order planned (a cap or an estimate for decision/duration)
    double elapsed_s = 0; // since this experiment's session started
    std::optional<double> eta_s; // null when unknown
};

class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void on_start(const Experiment& /*experiment*/, const RunStart& /*start*/) { }
    // `t_s`: seconds since the whole `kwb run` started (the stream's clock).
    virtual void on_sample(const Experiment& /*experiment*/, const Sample& /*sample*/, double /*t_s*/) { }
    // A live sampler reading; its t_s is already on the stream's clock.
    virtual void on_metric(const MetricReading& /*reading*/) { }
    virtual void on_progress(const Experiment& /*experiment*/, const RunProgress& /*progress*/) { }
    // The experiment's verdict and final_verdict are set.
    virtual void on_verdict(const Experiment& /*experiment*/) { }
    virtual void on_error(const std::string& /*message*/, bool /*continues*/) { }
    // Called by the driver of the run (the CLI), once, after the last experiment.
    virtual void on_end(const std::string& /*status*/, int /*exit_code*/) { }
};

// Forwards every event to several observers (e.g. the stream writer and a recorder).
class FanOutObserver : public RunObserver {
public:
    void add(RunObserver* observer) { observers_.push_back(observer); }

    void on_start(const Experiment& e, const RunStart& s) override
    {
        for (auto* o : observers_)
            o->on_start(e, s);
    }
    void on_sample(const Experiment& e, const Sample& s, double t) override
    {
        for (auto* o : observers_)
            o->on_sample(e, s, t);
    }
    void on_metric(const MetricReading& r) override
    {
        for (auto* o : observers_)
            o->on_metric(r);
    }
    void on_progress(const Experiment& e, const RunProgress& p) override
    {
        for (auto* o : observers_)
            o->on_progress(e, p);
    }
    void on_verdict(const Experiment& e) override
    {
        for (auto* o : observers_)
            o->on_verdict(e);
    }
    void on_error(const std::string& m, bool c) override
    {
        for (auto* o : observers_)
            o->on_error(m, c);
    }
    void on_end(const std::string& s, int code) override
    {
        for (auto* o : observers_)
            o->on_end(s, code);
    }

private:
    std::vector<RunObserver*> observers_;
};

} // namespace kwb
