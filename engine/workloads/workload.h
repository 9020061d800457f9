// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sampling/sampler.h"
#include "workloads/workload_description.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kwb {

struct Arm;

// What one repetition measured. `metrics` holds one value per MetricSpec; `iterations` the
// per-iteration values of the first metric where a repetition runs several.
struct RepetitionResult {
    std::map<std::string, double> metrics;
    std::vector<double> iterations;
    std::optional<double> total_ms; // the timed region of the whole repetition (GPU: CUDA events)
    std::optional<int> launches; // launches (iterations) the repetition ran
    std::optional<double> clock_mhz;
    std::optional<double> temperature_c;
    bool throttled = false;
    // External commands (workloads/command): a failed repetition carries no metrics, the reason in
    // `error`; the runner records it as a failed sample and never reads it as a number.
    bool failed = false;
    std::string error;
    std::optional<int> exit_status;
    std::string stdout_tail, stderr_tail;
    std::string adapter;
    std::map<std::string, std::string> fingerprint;
    std::optional<double> peak_gpu_mem_mib;
    // Cut short by the run's stop request (PreparedWorkload::set_cancel): not a measurement and not
    // a failure of the arm; the runner keeps no sample of it.
    bool interrupted = false;
    // Set with `failed` when the arm cannot go on (a worker arm that died after its one restart):
    // the runner records the repetition, then ends the experiment failed.
    bool arm_lost = false;
    // Readings the workload timed itself (tiny_llm: each request's `ttft`, each token's `itl`), t_s
    // in seconds from the repetition's start. The runner puts them in the experiment's lanes and the
    // progress stream as `metric` events, on the same clocks as the samplers' readings.
    std::vector<MetricReading> readings;
};

// An output a worker arm wrote for its check (docs/worker-protocol.md, verify): raw float32.
// Where the arm has no reference callable, the runner compares it with the baseline arm's output
// for the same seed (workloads/worker/output_check.h), since only it holds both arms' files.
struct OutputFile {
    std::string path;
    long long elements = 0;
    double atol = 0, rtol = 0; // this arm's tolerance against the baseline
    bool has_reference = false; // the worker compared with its own reference (the check is done)
};

struct VerifyResult {
    bool ok = false;
    double max_abs_error = 0;
    double tolerance = 0;
    std::string detail;
    std::optional<double> max_rel_error {};
    // The device buffers it ran on (GPU backend: the plugin's buffer set id; nullopt where the
    // workload does not say). Arms with the same id ran their kernels on the same memory.
    std::optional<std::uint64_t> buffer_set {};
    std::optional<OutputFile> output {}; // worker arms
};

// Whether every arm ran on one set of device buffers (their checks name the same buffer set):
// nullopt when an arm's workload does not say, so "unknown" never reads as "separate".
std::optional<bool> arms_share_buffers(const std::vector<VerifyResult>& checks);

// A workload prepared for one parameter set on one backend: buffers allocated, inputs seeded.
class PreparedWorkload {
public:
    virtual ~PreparedWorkload() = default;
    // One repetition: one timed block of iterations. Throws WorkloadError.
    virtual RepetitionResult run_once() = 0;
    // Compares the output against the plain reference implementation.
    virtual VerifyResult verify() = 0;
    // Sets how many launches (iterations) one repetition runs, for the runner's calibration of
    // repetitions to the plan's min_rep_ms. False when the workload has no such count (a decode
    // loop, an external command): its repetitions are what they are.
    virtual bool set_launches(int /*launches*/) { return false; }
    // Called before each run_once() with the arm's name and the run's position in the experiment's
    // order (negative for warm-ups). A workload that draws random values (synthetic) derives its
    // stream from them, so draws depend on which arm and which run, never on call order.
    virtual void set_run(std::string_view /*arm*/, int /*position*/) { }
    // The run's stop request, given once after preparing. A workload that waits on something
    // outside the process (an external command) watches it, ends what it waits on, and returns
    // RepetitionResult::interrupted, so a stop is honoured within a second whatever the arm is
    // doing; one whose repetitions are bounded and short ignores it.
    virtual void set_cancel(const std::atomic<bool>* /*cancel*/) { }
    // The seed the next verify() draws its inputs from: the runner gives every arm the same one in a
    // round, so a worker arm's output can be compared with the baseline's. Ignored by workloads
    // whose inputs are fixed at prepare().
    virtual void set_verify_seed(std::uint64_t /*seed*/) { }
    // True for a workload whose check runs again after the last repetition (worker arms: a kernel
    // that caches a result or skips work on repeated inputs fails the second check).
    virtual bool verify_after_run() const { return false; }
};

class Workload {
public:
    virtual ~Workload() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<Backend> backends() const = 0;
    virtual std::vector<ParamSpec> params() const = 0;
    virtual std::vector<MetricSpec> metrics() const = 0;
    // Older names that still load (a workload that absorbed another keeps its name as an alias).
    virtual std::vector<std::string> aliases() const { return {}; }
    // True for a workload that measures nothing real (synthetic draws for testing the statistics);
    // every listing marks it.
    virtual bool synthetic() const { return false; }
    // `params` holds every parameter (defaults filled in by the caller via resolve_params).
    virtual std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const = 0;
    // Checks parameter values (ranges, divisibility, buffer sizes) without preparing anything, so
    // a study is refused when it is written (kwb new exit 2 naming the value and the rule) rather
    // than failing at run time. Throws WorkloadError; prepare() applies the same checks.
    virtual void validate(const nlohmann::json& /*resolved_params*/, Backend /*backend*/) const { }
    // Prepares one arm of an experiment. The default resolves the arm's parameters and calls
    // prepare(); a workload whose arms are more than parameters (an external command) overrides it.
    virtual std::unique_ptr<PreparedWorkload> prepare_arm(const Arm& arm, Backend backend) const;

    // Its description as data (name, text, backends, parameters, metrics, aliases, synthetic).
    WorkloadDescription describe() const;
};

// A workload whose description is data of the analysis library (workloads/descriptions/): the
// built-in kernels and the command workload, which add only how to prepare and check.
class DescribedWorkload : public Workload {
public:
    explicit DescribedWorkload(const WorkloadDescription& description)
        : description_(description)
    {
    }
    std::string name() const override { return description_.name; }
    std::string description() const override { return description_.text; }
    std::vector<Backend> backends() const override { return description_.backends; }
    std::vector<ParamSpec> params() const override { return description_.params; }
    std::vector<MetricSpec> metrics() const override { return description_.metrics; }
    std::vector<std::string> aliases() const override { return description_.aliases; }
    bool synthetic() const override { return description_.synthetic; }

private:
    const WorkloadDescription& description_;
};

// The Workload forms of the description's rules (workloads/workload_description.h), for callers
// that hold the runnable workload.
nlohmann::json resolve_params(
    const Workload& workload, const nlohmann::json& given, std::optional<Backend> backend = std::nullopt);
bool has_backend(const Workload& workload, Backend backend);
bool params_fit_backend(const Workload& workload, const nlohmann::json& given, Backend backend);
nlohmann::json describe_workload(const Workload& workload);

class WorkloadRegistry;

// "a, b, c": the names of a workload's parameters and metrics and of a registry's workloads.
std::string param_names(const Workload& workload);
std::string metric_names(const Workload& workload);
std::string workload_names(const WorkloadRegistry& registry);

class WorkloadRegistry {
public:
    void add(std::unique_ptr<Workload> workload);
    // By name or alias ("triad" finds "bandwidth").
    const Workload* find(std::string_view name) const;
    std::vector<const Workload*> all() const;

private:
    std::vector<std::unique_ptr<Workload>> workloads_;
};

} // namespace kwb
