// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/repetition_monitor.h"
#include "run/run_observer.h"
#include "run/schedule.h"
#include "sampling/sampler.h"
#include "study/study.h"
#include "workloads/workload.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

// The Runner executes one experiment of a study: it prepares each arm once (the workload's
// buffers, inputs, plans), calibrates the launches per repetition to the plan's min_rep_ms
// (run/launch_calibration.h), runs the warm-ups, checks every arm's output against its
// reference (a failed check ends the experiment without a verdict: a faster wrong kernel must
// never be licensed), then runs the interleaved order of run/schedule.h until the plan's
// stopping rule (run/stopping.h) says enough, and judges the result (run/judge_experiment.h).
//
// Crash safety: after every finished repetition the sample is appended to the experiment and the
// `checkpoint` callback runs (the CLI saves the study atomically there), so a crash, a kill or a
// device fault loses at most the repetition in flight. Cancellation is a flag checked between
// repetitions: a repetition is never torn, and everything finished is kept and judged.
//
// The same Runner serves CPU workloads, CUDA workloads and (later) external commands: it only
// sees PreparedWorkload::run_once() and Sampler readings.
namespace kwb {

enum class RunOutcome { Done, Stopped, Failed };

struct RunnerOptions {
    Backend backend = Backend::Cpu;
    const std::atomic<bool>* cancel = nullptr; // set from a signal handler or a UI thread
    std::vector<Sampler*> samplers; // unavailable ones are skipped
    double sampler_period_s = 0.2;
    RunObserver* observer = nullptr;
    // Saves the study; called after every finished repetition and at every status change, with
    // the runner's lock held (so sampler threads do not change lanes during a save).
    std::function<void()> checkpoint;
    // Monotonic seconds. Tests inject a clock the fake workload advances, so the duration and
    // max-time rules are tested without wall-clock thresholds.
    std::function<double()> clock;
    // The clock's value when the whole run (all experiments) started: the stream's t_s origin.
    // Negative: the moment the Runner is constructed.
    double run_started_s = -1;
    // Clocks, power and throttle reasons per repetition (NVML for a GPU run); null: not recorded.
    RepetitionMonitor* monitor = nullptr;
    // NVTX ranges around the experiment, its warm-ups and repetitions; empty functions: none.
    RangeTracer tracer;
    // Called as a repetition starts (warm-up or judged); the repetition then ends with the
    // checkpoint that saves it. kwb run marks that span as one a signal must not cut short.
    std::function<void()> before_repetition;
    // Sampler readings reach the experiment's lanes (and so its saves) at most this often, at a
    // repetition's end, and all of them when the experiment ends (docs/study-format.md, lanes).
    double lane_flush_period_s = 2.0;
};

// A repetition keeps its per-iteration values only up to this many: a calibrated CPU
// repetition can be thousands of iterations, which would swell every save for nothing (the
// sample's value is their mean, and `launches` says how many there were).
inline constexpr size_t kMaxStoredIterations = 64;

class Runner {
public:
    Runner(const Workload& workload, RunnerOptions options);

    // Runs `experiment`, a member of `study`, from where it stands (pending, or stopped with
    // samples kept: it resumes at the next position of the order). Sets status, stop_reason,
    // error, missing_gates, samples, lanes and, once each arm has a judged run, both verdicts.
    // A workload error makes the experiment Failed (no exception). Throws std::invalid_argument
    // for an experiment that cannot run (fewer than two arms, an unknown profile).
    RunOutcome run(Study& study, Experiment& experiment);

private:
    struct Session;
    void execute(Session& session, const ScheduledRun& run);
    void calibrate(Session& session);
    // `when` words the round in the record and the error ("after the last repetition"; empty: the
    // check before the warm-ups).
    void check_correctness(Session& session, const char* when);
    void report_progress(Session& session);

    const Workload& workload_;
    RunnerOptions options_;
    std::mutex mutex_;
};

} // namespace kwb
