// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/runner.h"

#include "run/judge_experiment.h"
#include "run/launch_calibration.h"
#include "run/stopping.h"
#include "sampling/lane_downsample.h"
#include "study/lane_range.h"
#include "study/study_file.h"
#include "workloads/command/command_controls.h"
#include "workloads/worker/output_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

namespace kwb {

// Everything one call of run() needs, shared by its helpers.
struct Runner::Session {
    Study& study;
    Experiment& experiment;
    std::vector<std::unique_ptr<PreparedWorkload>> prepared; // one per arm
    double t0 = 0; // clock at the session's start
    double lane_offset = 0; // lanes continue after those an earlier session recorded
    int done_before = 0;
    int planned_per_arm = 0;
    double rep_seconds = 0; // total wall time of this session's repetitions
    int reps = 0;
    std::string sampler_error; // set (under the runner's lock) when delivering a reading threw
    // The duration clock (Experiment::timed_elapsed_s): earlier sessions' seconds, and when this
    // session's first timed repetition started (preparing, calibrating and warm-ups do not count).
    double timed_before = 0;
    std::optional<double> timed_start;

    double duration_clock(double now) const { return timed_before + (timed_start ? now - *timed_start : 0.0); }
    // Readings since the last flush into the experiment's lanes (under the runner's lock): lanes
    // reach the study on a timer and at the end, not with every repetition's save.
    std::vector<SamplerLane> pending_lanes;
    double last_lane_flush = 0;
};

namespace {

// A wrong output: the experiment fails and whatever verdict it had is withdrawn.
class CorrectnessFailure : public WorkloadError {
public:
    using WorkloadError::WorkloadError;
};

// Pushes a named range for the lifetime of the scope (NVTX in a GPU run).
class Range {
public:
    Range(const RangeTracer& tracer, const std::string& name)
        : tracer_(tracer)
    {
        if (tracer_.push)
            tracer_.push(name);
    }
    ~Range()
    {
        if (tracer_.push && tracer_.pop)
            tracer_.pop();
    }
    Range(const Range&) = delete;
    Range& operator=(const Range&) = delete;

private:
    const RangeTracer& tracer_;
};

} // namespace

namespace {

double steady_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Runs of the order an arm has finished, discarded ones included: a discarded run is not
// repeated, so a workload that only returns unusable values still ends at its count.
int run_count(const Experiment& e, const std::string& arm)
{
    return static_cast<int>(
        std::count_if(e.samples.begin(), e.samples.end(), [&](const Sample& s) { return s.arm == arm && !s.warmup; }));
}

int fewest_runs(const Experiment& e)
{
    int fewest = -1;
    for (const auto& a : e.arms) {
        const int n = run_count(e, a.name);
        fewest = fewest < 0 ? n : std::min(fewest, n);
    }
    return std::max(fewest, 0);
}

int total_runs(const Experiment& e)
{
    return static_cast<int>(
        std::count_if(e.samples.begin(), e.samples.end(), [](const Sample& s) { return !s.warmup; }));
}

// Where the judged order resumes: one past the furthest judged position already taken.
int next_position(const Experiment& e)
{
    int next = 0;
    for (const auto& s : e.samples)
        if (!s.warmup)
            next = std::max(next, s.position + 1);
    return next;
}

// Stops the samplers on every way out of run(), including exceptions, and never under the
// runner's lock (a sampler's last reading may be waiting for it).
class SamplersGuard {
public:
    ~SamplersGuard() { stop(); }
    void add(Sampler* s) { running_.push_back(s); }
    void stop()
    {
        for (auto* s : running_)
            s->stop();
        running_.clear();
    }

private:
    std::vector<Sampler*> running_;
};

// The fields only external commands fill (workloads/command); a failed one keeps no metrics.
void copy_command_fields(Sample& sample, const RepetitionResult& r)
{
    sample.failed = r.failed;
    sample.exit_status = r.exit_status;
    sample.stdout_tail = r.stdout_tail;
    sample.stderr_tail = r.stderr_tail;
    sample.adapter = r.adapter;
    sample.fingerprint = r.fingerprint;
    sample.peak_gpu_mem_mib = r.peak_gpu_mem_mib;
    if (r.failed) {
        sample.discarded = true;
        sample.note = fmt::format("failed: {}", r.error);
    }
}

RepetitionResult fail_missing_metric(RepetitionResult r, const std::string& metric)
{
    std::string read;
    for (const auto& [k, v] : r.metrics)
        read += (read.empty() ? "" : ", ") + k;
    r.failed = true;
    r.error = fmt::format("adapter {} read no '{}' (it read: {})", r.adapter, metric, read.empty() ? "nothing" : read);
    r.metrics.clear();
    return r;
}

SamplerLane& lane_for(std::vector<SamplerLane>& lanes, const std::string& name, const std::string& unit)
{
    for (auto& l : lanes)
        if (l.name == name)
            return l;
    lanes.push_back({name, unit, {}, {}});
    return lanes.back();
}

// Moves the pending readings into the experiment's lanes, bounded (min/max downsampled) so saves
// stay small on long runs. Called with the runner's lock held.
void flush_lanes(Experiment& e, std::vector<SamplerLane>& pending)
{
    for (auto& p : pending) {
        SamplerLane& lane = lane_for(e.lanes, p.name, p.unit);
        for (size_t i = 0; i < p.t_s.size(); ++i)
            append_bounded(lane, p.t_s[i], p.values[i]);
        lane.dropped_out_of_range += p.dropped_out_of_range;
        p.t_s.clear();
        p.values.clear();
        p.dropped_out_of_range = 0;
    }
}

// A reading enters a lane through the range rule (study/lane_range.h): kept (a percentage
// clamped into [0, 100]) or dropped and counted. The kept value, if any, is what the stream shows.
std::optional<double> add_reading(SamplerLane& lane, double t_s, double value)
{
    const LaneReading checked = check_lane_reading(lane.unit, value);
    if (!checked.keep) {
        ++lane.dropped_out_of_range;
        return std::nullopt;
    }
    lane.t_s.push_back(t_s);
    lane.values.push_back(checked.value);
    return checked.value;
}

} // namespace

Runner::Runner(const Workload& workload, RunnerOptions options)
    : workload_(workload)
    , options_(std::move(options))
{
    if (!options_.clock)
        options_.clock = steady_seconds;
    if (options_.run_started_s < 0)
        options_.run_started_s = options_.clock();
}

void Runner::report_progress(Session& s)
{
    if (!options_.observer)
        return;
    const Experiment& e = s.experiment;
    RunProgress p;
    p.done = total_runs(e);
    p.elapsed_s = options_.clock() - s.t0;
    const int arms = static_cast<int>(e.arms.size());
    // A plan of up to INT_MAX runs per arm is valid: count its runs without overflowing an int.
    const int plan_runs = static_cast<int>(
        std::min<long long>(static_cast<long long>(s.planned_per_arm) * arms, std::numeric_limits<int>::max()));
    const double per_rep = s.reps > 0 ? s.rep_seconds / s.reps : 0;
    if (e.plan.stop == StopRule::Duration) {
        const double left = std::max(0.0, e.plan.duration_s - s.duration_clock(options_.clock()));
        const double more = per_rep > 0 ? std::ceil(left / per_rep) : 0;
        p.planned = static_cast<int>(std::min<double>(plan_runs, std::max(p.done + more, arms * 1.0)));
        if (s.reps > 0)
            p.eta_s = left;
    } else {
        p.planned = std::max(plan_runs, p.done);
        if (s.reps > 0)
            p.eta_s = (p.planned - p.done) * per_rep;
    }
    options_.observer->on_progress(e, p);
}

void Runner::execute(Session& s, const ScheduledRun& run)
{
    Experiment& e = s.experiment;
    if (options_.before_repetition)
        options_.before_repetition();
    Sample sample;
    sample.arm = e.arms[static_cast<size_t>(run.arm)].name;
    sample.rep = run.rep;
    sample.position = run.position;
    sample.warmup = run.warmup;
    sample.started_at = utc_now_iso8601();
    const double experiment_clock = s.lane_offset - s.t0; // + clock(): seconds on the lanes' clock
    s.prepared[static_cast<size_t>(run.arm)]->set_run(sample.arm, run.position);
    const Range range(options_.tracer, fmt::format("{} {} #{}", run.warmup ? "warmup" : "rep", sample.arm, run.rep));
    if (options_.monitor)
        options_.monitor->begin();
    const double start = options_.clock();
    if (!run.warmup && !s.timed_start)
        s.timed_start = start; // the duration clock starts with the first timed repetition
    sample.t_s = experiment_clock + start;
    RepetitionResult r
        = s.prepared[static_cast<size_t>(run.arm)]->run_once(); // outside the lock: samplers keep reading
    sample.duration_s = options_.clock() - start;
    if (options_.monitor)
        options_.monitor->end(sample);
    if (r.interrupted)
        return; // cut short by the stop: no measurement; the run loop sees the flag next and stops
    copy_command_fields(sample, r);
    const auto value = r.metrics.find(e.metric);
    if (r.failed) {
        // A failed external command: kept with its reason (copy_command_fields), never judged.
    } else if (value == r.metrics.end()) {
        if (!r.adapter.empty()) { // an external command whose output lacks the metric: that repetition failed
            r = fail_missing_metric(std::move(r), e.metric);
            copy_command_fields(sample, r);
        } else
            throw WorkloadError(
                fmt::format("{}: a repetition returned no value for metric '{}'", workload_.name(), e.metric));
    } else if (!std::isfinite(value->second) || value->second <= 0) {
        // The verdict takes positive finite values only; keep the run visible but out of the judgement.
        sample.discarded = true;
        sample.note = fmt::format("discarded: {} = {} is not a positive finite value", e.metric, value->second);
    }
    sample.metrics = std::move(r.metrics);
    if (r.iterations.size() <= kMaxStoredIterations)
        sample.iterations = std::move(r.iterations);
    sample.launches = r.launches ? r.launches : e.launches_per_rep;
    if (r.clock_mhz)
        sample.clock_mhz = r.clock_mhz;
    if (r.temperature_c)
        sample.temperature_c = r.temperature_c;
    sample.throttled = sample.throttled || r.throttled;
    s.rep_seconds += sample.duration_s;
    ++s.reps;

    std::lock_guard lock(mutex_);
    // The workload's own readings, on the lanes' clock and the stream's, as the samplers' are.
    for (const auto& reading : r.readings) {
        SamplerLane& lane = lane_for(s.pending_lanes, reading.name, reading.unit);
        const auto kept = add_reading(lane, experiment_clock + start + reading.t_s, reading.value);
        if (kept && options_.observer)
            options_.observer->on_metric(
                {start - options_.run_started_s + reading.t_s, reading.name, *kept, reading.unit});
    }
    if (!run.warmup)
        e.timed_elapsed_s = s.duration_clock(options_.clock()); // saved with the sample: a resume continues it
    e.samples.push_back(std::move(sample));
    const double now = options_.clock();
    if (now - s.last_lane_flush >= options_.lane_flush_period_s) {
        flush_lanes(e, s.pending_lanes);
        s.last_lane_flush = now;
    }
    // Saved before it is announced: a client that sees the `sample` line, then loses the process
    // (a kill, a crash, a closed pipe), finds that sample in the file.
    if (options_.checkpoint)
        options_.checkpoint();
    if (options_.observer)
        options_.observer->on_sample(e, e.samples.back(), options_.clock() - options_.run_started_s);
    report_progress(s);
    if (e.samples.back().failed) {
        if (r.arm_lost) // recorded above; the arm cannot go on (a worker dead after its one restart)
            throw WorkloadError(fmt::format("arm {}: {}", e.samples.back().arm, r.error));
        if (const auto limit = command::too_many_failures(e))
            throw WorkloadError(*limit);
    }
}

void Runner::calibrate(Session& s)
{
    Experiment& e = s.experiment;
    if (e.launches_per_rep) { // a resumed experiment keeps the count its samples were taken with
        for (auto& p : s.prepared)
            p->set_launches(*e.launches_per_rep);
        return;
    }
    if (e.plan.min_rep_ms <= 0)
        return;
    std::vector<PreparedWorkload*> arms;
    for (auto& p : s.prepared)
        arms.push_back(p.get());
    const Range range(options_.tracer, "calibrate launches");
    const auto result = calibrate_launches(arms, e.plan.min_rep_ms, options_.clock);
    if (!result)
        return;
    std::lock_guard lock(mutex_);
    e.launches_per_rep = result->launches;
    if (options_.checkpoint)
        options_.checkpoint();
}

void Runner::check_correctness(Session& s, const char* when)
{
    Experiment& e = s.experiment;
    std::string failures;
    std::vector<VerifyResult> checks;
    // One seed per round, the same for every arm: a worker arm without a reference is compared
    // with the baseline's output for the same inputs (workloads/worker/output_check.h).
    const std::uint64_t seed = std::random_device {}() | (static_cast<std::uint64_t>(std::random_device {}()) << 32);
    for (size_t i = 0; i < e.arms.size(); ++i) {
        s.prepared[i]->set_verify_seed(seed);
        {
            const Range range(options_.tracer, fmt::format("verify {}", e.arms[i].name));
            checks.push_back(s.prepared[i]->verify());
        }
        // A check cut short by a stop says nothing about the arm: the run stops unchecked.
        if (options_.cancel && options_.cancel->load())
            return;
    }
    for (size_t i = 1; i < checks.size(); ++i) {
        VerifyResult& v = checks[i];
        if (!v.ok || !v.output || v.output->has_reference)
            continue;
        if (!checks[0].output) {
            v.ok = false;
            v.detail = "no reference callable, and the baseline wrote no output to compare with";
            continue;
        }
        const auto c = worker::compare_with_baseline(*v.output, *checks[0].output);
        v.ok = c.ok && checks[0].ok;
        v.max_abs_error = c.max_abs_error;
        v.max_rel_error = c.max_rel_error;
        v.tolerance = c.tolerance;
        v.detail = checks[0].ok ? c.detail : "the baseline's own output failed its check, so nothing to compare with";
    }
    for (size_t i = 0; i < e.arms.size(); ++i) {
        const VerifyResult& v = checks[i];
        CorrectnessCheck c;
        c.ok = v.ok;
        c.max_abs_error = v.max_abs_error;
        c.max_rel_error = v.max_rel_error;
        c.tolerance = v.tolerance;
        c.compared = when[0] ? fmt::format("{}: {}", when, v.detail) : v.detail;
        c.checked_at = utc_now_iso8601();
        {
            std::lock_guard lock(mutex_);
            e.arms[i].check = c;
        }
        if (!v.ok)
            failures += fmt::format(
                "{}arm {}: output does not match the reference ({}: max error {:.3g} > tolerance {:.3g})",
                failures.empty() ? "" : "; ", e.arms[i].name, v.detail, v.max_abs_error, v.tolerance);
    }
    {
        std::lock_guard lock(mutex_);
        e.shared_buffers = arms_share_buffers(checks);
    }
    if (!failures.empty())
        throw CorrectnessFailure(fmt::format("correctness check {}failed, no verdict: {}",
            when[0] ? fmt::format("{} ", when) : std::string(), failures));
}

RunOutcome Runner::run(Study& study, Experiment& e)
{
    if (e.arms.size() < 2)
        throw std::invalid_argument(fmt::format("experiment {}: needs two arms, has {}", e.id, e.arms.size()));
    const Profile profile = experiment_profile(e, metric_direction(study, workload_.metrics(), e.metric));
    StoppingRule stopping(e.plan, profile);
    const int arms = static_cast<int>(e.arms.size());

    Session s {study, e, {}, options_.clock(), 0, total_runs(e), stopping.planned_per_arm(), 0, 0, {},
        e.timed_elapsed_s.value_or(0.0), std::nullopt, {}, 0};
    s.last_lane_flush = s.t0;
    for (const auto& l : e.lanes)
        if (!l.t_s.empty())
            s.lane_offset = std::max(s.lane_offset, l.t_s.back());
    {
        std::lock_guard lock(mutex_);
        e.status = ExperimentStatus::Running;
        e.error.clear();
        e.stop_reason.clear();
        e.backend = std::string(to_string(options_.backend));
        e.missing_gates = missing_gates(study, e);
        for (auto& g : command::command_missing_gates(e)) // a command arm without a check is unverified
            e.missing_gates.push_back(std::move(g));
        if (options_.observer) {
            const int planned_blocks = e.plan.stop == StopRule::Duration
                ? std::min(e.plan.runs_per_arm, s.planned_per_arm)
                : s.planned_per_arm;
            const int blocks = std::min(planned_blocks, kMaxAnnouncedBlocks);
            options_.observer->on_start(e,
                {e.backend, order_names(e.arms, e.plan, blocks), blocks < s.planned_per_arm, s.planned_per_arm,
                    s.done_before});
        }
        if (options_.checkpoint)
            options_.checkpoint();
    }

    const auto cancelled = [&] { return options_.cancel && options_.cancel->load(); };
    RunOutcome outcome = RunOutcome::Done;
    std::string reason;
    std::string stop_code;
    try {
        const Range experiment_range(options_.tracer, fmt::format("experiment {}", e.id));
        for (const auto& arm : e.arms) {
            s.prepared.push_back(workload_.prepare_arm(arm, options_.backend));
            s.prepared.back()->set_cancel(options_.cancel);
        }
        calibrate(s);

        SamplersGuard samplers; // before the first start(): one that throws still stops the others
        for (auto* sampler : options_.samplers) {
            if (!sampler->unavailable_reason().empty())
                continue;
            // A reading's t_s counts from its sampler's start, which comes after the arms were
            // prepared (a CUDA context, big buffers: up to seconds): shift it onto the stream's
            // clock and the lanes' from that moment, not from the session's start.
            const double started = options_.clock();
            const double stream_offset = started - options_.run_started_s;
            const double lane_offset = s.lane_offset + (started - s.t0);
            sampler->start(
                [this, &e, &s, stream_offset, lane_offset](const MetricReading& r) {
                    std::lock_guard lock(mutex_);
                    if (!s.sampler_error.empty())
                        return;
                    // Runs on the sampler's thread: an exception must not escape it (that would end
                    // the process with the study left "running"); the run loop rethrows it.
                    try {
                        SamplerLane& lane = lane_for(s.pending_lanes, r.name, r.unit);
                        const auto kept = add_reading(lane, r.t_s + lane_offset, r.value);
                        if (kept && options_.observer)
                            options_.observer->on_metric({r.t_s + stream_offset, r.name, *kept, r.unit});
                    } catch (const std::exception& ex) {
                        s.sampler_error = fmt::format("live metric {}: {}", r.name, ex.what());
                    } catch (...) {
                        s.sampler_error = fmt::format("live metric {}: unknown error", r.name);
                    }
                },
                options_.sampler_period_s);
            samplers.add(sampler);
        }

        const auto rethrow_sampler_error = [&] {
            std::lock_guard lock(mutex_);
            if (!s.sampler_error.empty())
                throw std::runtime_error(s.sampler_error);
        };
        // The check comes before the warm-ups (the launch calibration has already run every arm
        // once): its pause, a reference kernel and a compare, lets a power-capped GPU cool and
        // boost, and when the timed order began right after it, the first blocks rode that
        // transient in the same phase every time: a GEMM A/A came out +2.7% for the second arm
        // in 10 of 10 studies (bench/results/2026-12-01-h200-aa-bias). The warm-ups now lead
        // straight into the order.
        if (!cancelled())
            check_correctness(s, "");
        for (const auto& w : schedule_warmups(arms, e.plan.warmup_runs)) {
            if (cancelled())
                break;
            execute(s, w);
            rethrow_sampler_error();
        }
        // The stopping rule comes before the cancel flag at a boundary: a signal that arrives
        // during the last repetition of a complete plan leaves a done experiment, not a stopped one.
        for (int pos = next_position(e);; ++pos) {
            if (pos % arms == 0) {
                const double now = options_.clock();
                auto stop = stopping.check(
                    fewest_runs(e), now - s.t0, [&] { return target_values(e); }, s.duration_clock(now));
                if (stop) {
                    reason = *stop;
                    stop_code = stopping.stop_code();
                    break;
                }
            }
            if (cancelled())
                break;
            const int block = pos / arms;
            const auto runs = schedule_blocks(arms, e.plan, block, 1);
            execute(s, runs[static_cast<size_t>(pos % arms)]);
            rethrow_sampler_error();
        }
        samplers.stop();
        rethrow_sampler_error();
        // Worker arms are checked again after the last repetition, with fresh inputs: a kernel that
        // caches a result or skips work on inputs it has seen passes the first check only.
        if (!cancelled()
            && std::any_of(s.prepared.begin(), s.prepared.end(), [](const auto& p) { return p->verify_after_run(); }))
            check_correctness(s, "after the last repetition");
        if (reason.empty() && cancelled()) {
            outcome = RunOutcome::Stopped;
            reason = fmt::format("stopped on request after {} runs of the order", total_runs(e));
        }
        if (outcome == RunOutcome::Done) {
            if (const auto none = command::arm_without_success(e)) {
                stop_code.clear(); // failed, like a run stopped by too many failures: no stopping record
                throw WorkloadError(*none);
            }
        }
    } catch (const std::exception& ex) {
        outcome = RunOutcome::Failed;
        reason = fmt::format("failed: {}", ex.what());
        std::lock_guard lock(mutex_);
        e.error = ex.what();
        if (dynamic_cast<const CorrectnessFailure*>(&ex)) {
            e.verdict.reset();
            e.final_verdict.reset();
        }
        if (options_.observer)
            options_.observer->on_error(fmt::format("experiment {}: {}", e.id, ex.what()), false);
    }

    std::lock_guard lock(mutex_);
    flush_lanes(e, s.pending_lanes); // the samplers have stopped: every reading reaches the study
    e.stop_reason = reason;
    if (outcome == RunOutcome::Stopped)
        stop_code = "stopped";
    e.stopping.reset();
    if (!stop_code.empty())
        e.stopping = stop_record(stopping, e.plan, fewest_runs(e), stop_code);
    e.status = outcome == RunOutcome::Done ? ExperimentStatus::Done
        : outcome == RunOutcome::Stopped   ? ExperimentStatus::Stopped
                                           : ExperimentStatus::Failed;
    if (outcome != RunOutcome::Failed && judgeable(e)) {
        judge_experiment(study, e, workload_.metrics());
        if (options_.observer)
            options_.observer->on_verdict(e);
    }
    if (options_.checkpoint)
        options_.checkpoint();
    return outcome;
}

} // namespace kwb
