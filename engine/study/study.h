// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/git_commit.h"
#include "study/grid_interaction_record.h"
#include "study/worker_spec.h"
#include "util/direction.h"
#include "verdict/verdict_types.h"

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// The Study document: the single source of truth of one optimisation, from its target to its
// verdicts. Plain data; loading, saving and migrations live in study_json.* and study_file.*.
// The format is documented in docs/study-format.md; bump kStudySchemaVersion and add a migration
// for every incompatible change.
namespace kwb {

inline constexpr int kStudySchemaVersion = 9;

// Phase 1: one metric, from X to Y, and the K/R/W triple.
struct Target {
    std::string metric; // e.g. "time_ms", "ttft_ms", "tok_s"
    Direction direction = Direction::Lower;
    std::string unit; // e.g. "ms"
    std::optional<double> current; // measured value today
    std::optional<double> goal; // value to reach
    std::string kernel; // K: exact semantics, dtypes, shapes, layouts
    std::string reference; // R: correctness oracle
    std::string workload; // W: workload distribution or focused shape
};

// Phase 2: what the hardware sheet showed when the study was made (kwb devices --json shape).
struct HardwareSnapshot {
    std::string captured_at; // ISO 8601 UTC
    nlohmann::json devices = nlohmann::json::array();
    std::string device_in_use; // name of the device the experiments ran on
    std::vector<std::string> warnings; // known traps found for this device
};

// Phase 3: the measured binding constraint.
struct BindingEvidence {
    std::string constraint; // memory-bandwidth, compute, smem, compute-suboptimal, launch-overhead, scheduler,
                            // at-extremes, or empty
    std::string notes;
    nlohmann::json metrics = nlohmann::json::object(); // name -> value, as measured
    // Written by `kwb profile` (engine/run/profiling_pass.h); empty in a study never profiled.
    std::string axis; // the optimisation axis the constraint suggests
    std::vector<std::string> evidence; // the readings and thresholds behind the call
    std::vector<std::string> warnings; // e.g. the profiler view and wall-clock disagree
    std::vector<std::string> limitations; // what the pass could not measure, with the fix
    nlohmann::json thresholds = nlohmann::json::object(); // the classifier's thresholds used
    nlohmann::json kernels = nlohmann::json::array(); // per-kernel evidence
    std::string experiment; // the experiment whose baseline arm was profiled
    std::string arm;
    std::string source; // cupti (PM sampling + Activity), events (NVML + event timing), procfs (CPU)
    std::string measured_at; // ISO 8601 UTC
};

// Phase 4: the formula that predicts the change, with its magnitude.
struct Prediction {
    std::string formula; // muParser expression giving predicted delta%
    std::map<std::string, double> variables; // named constants the formula uses
    std::optional<double> predicted_delta_pct; // the formula's value, positive = better
    std::string rationale;
    // Schema 3: the catalogue part (its `match`, e.g. "H100 80GB HBM3") whose figures give the
    // formula's hardware constants; empty: the GPU of the study's device sheet. The predicted value
    // is never typed: formula/prediction.h recomputes it on load, on save and on every edit.
    std::string gpu;
};

// The correctness check of one arm: its output against the workload's reference, run once per
// experiment after the launch calibration, before the warm-ups and timing. A failed check ends the experiment without a
// verdict: a faster wrong kernel must never be licensed.
struct CorrectnessCheck {
    bool ok = false;
    std::optional<double> max_abs_error;
    std::optional<double> max_rel_error;
    std::optional<double> tolerance;
    std::string compared; // what was compared with what, e.g. "gemm vs cuBLASLt (fp32 out)"
    std::string checked_at; // ISO 8601 UTC
};

// Schema 3: an arm that is an external benchmark command (workload "command", docs/adapters.md).
struct CommandSpec {
    std::string cmd; // run by /bin/sh -c; {out} becomes a fresh result-file path
    std::string cwd; // working directory; empty: where kwb runs
    std::map<std::string, std::string> env; // overrides on top of kwb's environment
    double timeout_s = 600; // per repetition; the process group is killed then
    std::string setup, teardown; // once per arm, before the first and after the last repetition
    std::string setup_each, teardown_each; // around every repetition
    std::string check; // correctness check, exit 0 = correct; empty: unverified
    std::string adapter = "auto"; // adapter name, or auto (detected from the output)
    nlohmann::json adapter_options = nlohmann::json::object(); // select, map, patterns
    // Schema 4: the cap on each of stdout, stderr and the result file, in MiB; past it the
    // repetition fails (a runaway writer must not take the machine's memory or the timeout).
    double max_output_mib = 64;
};

// The range of CommandSpec::max_output_mib (docs/study-format.md): a KiB at least, 16 GiB at most.
inline constexpr double kMinOutputMib = 1.0 / 1024;
inline constexpr double kMaxOutputMib = 16384;

// One arm of an A/B: a complete parameter set for the workload.
struct Arm {
    std::string name; // "baseline" or "treatment" (grids: "r0c1"...)
    nlohmann::json params = nlohmann::json::object();
    std::optional<CorrectnessCheck> check {}; // schema 3: null until the run checked it
    std::optional<CommandSpec> command {}; // schema 3: set for the command workload
    std::optional<WorkerSpec> worker {}; // schema 5: set for the worker workload (docs/worker-protocol.md)
    // Schema 3: empty for the A/B's arms (arms[0] baseline, arms[1] treatment); "aa" for the real
    // A/A arm, the baseline's configuration run again as a third arm (study/arm_roles.h).
    std::string role {};
    // Schema 8: the commit a command or worker arm runs (docs/git-arms.md); read and written
    // through study/git_arm.h (git_arm_of, set_git_arm). Null for any other arm.
    std::optional<GitArm> git {};
};

// Which device an experiment ran on. The model is what "same device" means: a study measured on
// one H200 resumes on any H200, never on an A100 (study/device_identity.h owns that rule).
struct DeviceIdentity {
    std::string kind; // "cpu" or "cuda"
    std::string model; // "NVIDIA H200", "Intel(R) Xeon(R) Processor"; written as "name" (the sheet's word)
    std::string uuid; // GPUs: "GPU-8c1a..."; empty for CPUs
    std::optional<int> index; // the CUDA device index it ran on
    std::string driver; // driver version where known

    bool empty() const { return kind.empty() && model.empty(); }
};

enum class RunOrder { Abba, RandomisedBlocks };
enum class StopRule { Count, Duration, Decision };

struct RunPlan {
    int runs_per_arm = 5; // Count: exactly this many; Decision: at most this many
    int warmup_runs = 1; // per arm, discarded, recorded as warm-up
    RunOrder order = RunOrder::Abba;
    std::uint64_t seed = 1; // for randomised blocks
    StopRule stop = StopRule::Count;
    double duration_s = 0; // Duration: stop once this much wall time has passed
    double max_seconds = 3600; // any rule: never run longer than this
    int max_runs_per_arm = 1000; // Duration: never more than this many runs per arm
    int split_halves = 0; // split-half stability check: halvings of the baseline; 0 = off (JSON was "aa_splits")
    // Schema 3: a repetition is a batch of launches (iterations) whose count is calibrated once
    // per experiment so the faster arm's repetition lasts at least this long; both arms use the
    // same count and values are stored per launch. 0 = off (the workload's own count).
    double min_rep_ms = 10;
};

// The matched-controls checklist of phase 5: name -> checked, plus free notes.
struct Controls {
    std::map<std::string, bool> checklist;
    std::string notes;
};

// One repetition of one arm.
struct Sample {
    std::string arm;
    int rep = 0; // index within its arm, from 0
    int position = 0; // index in the run order of the experiment, from 0
    std::string started_at; // ISO 8601 UTC
    double duration_s = 0;
    std::map<std::string, double> metrics; // metric name -> value of this repetition
    std::vector<double> iterations; // per-iteration values of the target metric, if several
    std::optional<double> clock_mhz;
    std::optional<double> temperature_c;
    bool warmup = false; // warm-up repetitions are kept but never judged
    bool discarded = false;
    bool throttled = false;
    std::string note;
    // Schema 3, GPU runs (absent where unknown: no NVML, a CPU run):
    std::optional<double> mem_clock_mhz;
    std::optional<double> power_w;
    std::vector<std::string> throttle_reasons; // NVML clock-event reasons seen during the repetition
    std::optional<int> launches; // launches (iterations) in this repetition
    // Schema 3, command arms: a failed repetition (non-zero exit, timeout, nothing the adapter could
    // read) is kept with failed = true, discarded = true, no metrics and the reason in note.
    bool failed = false;
    std::optional<int> exit_status;
    std::string stdout_tail, stderr_tail; // the last 4 KiB, with a note when cut
    std::string adapter; // the adapter that read it
    std::map<std::string, std::string> fingerprint; // adapter fields that must match across arms
    std::optional<double> peak_gpu_mem_mib; // NVML, all GPUs, while the command ran
    // When the repetition started, in seconds since the experiment started on the clock of its
    // lanes (absent in older studies): the live view draws each repetition's band from it.
    std::optional<double> t_s;
};

// A stream recorded by a sampler during the experiment (CPU utilisation, RSS, SM occupancy...).
struct SamplerLane {
    std::string name;
    std::string unit;
    std::vector<double> t_s; // seconds since the experiment started
    std::vector<double> values;
    // Readings the range rule dropped (study/lane_range.h: a percentage that cannot be
    // normalised into [0, 100], or a non-finite reading); 0 in studies recorded before the rule.
    unsigned long long dropped_out_of_range = 0;
};

// The split-half stability check: the baseline's own runs split in halves and judged against each
// other (a stability check at half the sample size; the real A/A is the "aa" arm). Named "A/A
// calibration" before schema 3's A/A arm (JSON "aa_calibration", read on load).
struct SplitHalfCheck {
    int splits = 0;
    int false_alarms = 0; // splits whose verdict was anything but NOISE
    std::vector<std::string> verdicts;
    std::string method; // how the splits were drawn, in words

    double false_alarm_rate() const { return splits > 0 ? static_cast<double>(false_alarms) / splits : 0.0; }
};

// Schema 3: why and when the stopping rule ended the run (docs/stopping.md). `code` is one of
// plan-complete, max-count, max-time, duration, beyond-license, below-kill, inside-noise-band,
// or stopped (a signal / the Stop button).
struct StopRecord {
    std::string rule; // count, duration, decision
    std::string code;
    int runs_per_arm = 0; // per arm when it stopped
    std::optional<double> alpha; // decision: the confidence sequence's total error
    int looks = 0; // decision: looks taken (the last one's number)
    std::optional<std::array<double, 2>> interval; // decision: the last look's interval of delta%
    std::optional<double> interval_level; // its level, 1 - alpha_k
};

enum class ExperimentStatus { Pending, Running, Done, Stopped, Failed };

// Schema 3: where an experiment ran when runs were spread out (`kwb run --devices`, `kwb run
// --cell`, `kwb submit`): which of the listed devices it was given, on which host, under which
// Slurm array task. The device identity says what the device was; this says which slot it was.
struct Placement {
    std::optional<int> device; // the --devices entry (the CUDA index for GPU runs); null: none given
    std::string host; // the host name of the machine that ran it
    std::string slurm_job; // "1234_5" (array job, task) under Slurm; empty otherwise
};

// Schema 9: where a `kwb bisect` search stood once this step was called (verdict/bisect.h): its
// upper end and how many commits are left between the newest good and the newest bad, so a reader
// of the study alone (the window, a report, a machine without the repository) can say whether the
// search ended on the first bad commit.
struct BisectStepRecord {
    std::string bad_sha; // the search's --bad commit
    int commits_in_range = 0; // good's descendants up to bad when the search began
    int commits_left = 0; // after this step's call: strictly between the newest good and the newest bad
};

struct Experiment {
    std::string id; // unique in the study, e.g. "ab-1"
    std::string kind = "ab"; // "ab", or "grid-cell" (one cell of a grid group)
    std::string workload;
    std::string backend = "auto"; // auto, cpu, cuda
    std::string metric; // the target metric judged by the verdict
    std::vector<std::string> guards; // other metrics that must not regress
    std::vector<Arm> arms; // arms[0] is the baseline
    RunPlan plan;
    Controls controls;
    std::string profile = "generic"; // verdict profile name
    nlohmann::json profile_overrides = nlohmann::json::object();
    bool acknowledged_multi_variable = false; // the user accepted arms that differ in >1 parameter
    ExperimentStatus status = ExperimentStatus::Pending;
    std::string error; // why it failed, if it did
    std::string stop_reason; // why the runner stopped (plan complete, duration, decision, signal...)
    std::vector<Sample> samples;
    std::vector<SamplerLane> lanes;
    std::optional<SplitHalfCheck> split_half;
    std::vector<std::string> missing_gates; // wizard gates that were not met when it ran
    // Schema 3:
    DeviceIdentity device; // the device the samples were taken on (empty until run)
    std::optional<int> launches_per_rep; // the calibrated launch count both arms use
    std::vector<std::string> limitations; // what this run could not record, e.g. "no NVML: clocks not recorded"
    std::optional<SampleVerdict> verdict; // sample verdict (JSON: the kwb verdict --json shape) or none
    std::optional<FinalVerdict> final_verdict; // after study-level rules, or none
    std::optional<StopRecord> stopping; // schema 3: why and when it stopped (null until it did)
    // Schema 3, grids (kind "grid-cell"): the grid group this cell belongs to and its level index
    // per grid variable, e.g. {1, 0}. A cell is a complete two-arm experiment (the baseline cell
    // against this one), so cells can run apart (another GPU, another job) and still be judged.
    std::string group;
    std::vector<int> cell;
    // Schema 3, the real A/A: the sample verdict of the "aa" arm against the baseline (same
    // profile, same n, interleaved), null without an A/A arm or before it was judged.
    std::optional<SampleVerdict> aa_verdict;
    // Schema 3: seconds on the duration clock, which starts at the experiment's first timed
    // (judged) repetition and adds each session's time from its first judged repetition, so a
    // resumed run continues the clock instead of restarting it. Null until a judged repetition ran.
    std::optional<double> timed_elapsed_s;
    std::optional<Placement> placement; // schema 3: null unless the run was spread out
    // Schema 3: true when every arm timed its kernel on the same device buffers (arms whose
    // buffer-defining parameters are equal share them on the GPU backend), false when some arm had
    // its own; absent where the workload does not say (CPU workloads, external commands).
    std::optional<bool> shared_buffers;
    // Schema 7: fingerprint fields the user declared expected to differ between the arms (kwb new
    // --expect-differ FIELD): such a difference is reported, not a blocker (command_controls.h).
    std::vector<std::string> expect_differ;
    std::optional<BisectStepRecord> bisect; // schema 9: a kwb bisect step's search, else none
};

// Schema 3, phase 6: one variable of a grid and its levels; levels[0] is the baseline level.
struct GridVariable {
    std::string name;
    std::vector<nlohmann::json> levels;
};

// A grid of two variables (2 to 4 levels each). Every cell but the baseline cell is its own
// experiment of kind "grid-cell" naming this group; the interaction estimate is stored here once
// every cell is judged (verdict/grid_interaction.h), null before.
struct GridGroup {
    std::string id; // "grid-1"
    std::vector<GridVariable> variables;
    std::optional<GridInteraction> interaction; // study/grid_interaction_record.h
};

// Phase 7: one tradeoff axis. A license needs at least one axis with a named sacrifice.
struct Tradeoff {
    std::string axis; // loc-complexity, hardware-specificity, ...
    bool sacrificed = false;
    std::string note; // what exactly was given up
};

// One A/B attempt and what it left standing.
struct LedgerEntry {
    std::string experiment_id;
    std::string at; // ISO 8601 UTC
    std::string verdict; // LICENSE, KILL, NOISE, INCONCLUSIVE
    std::string summary;
    std::vector<std::string> hypotheses; // hypotheses still standing after this attempt
};

struct Study {
    int schema_version = kStudySchemaVersion;
    std::string name;
    std::string description;
    std::string created_at;
    std::string modified_at;
    Target target;
    HardwareSnapshot hardware;
    BindingEvidence binding;
    Prediction prediction;
    std::vector<Experiment> experiments;
    std::vector<Tradeoff> tradeoffs;
    std::vector<LedgerEntry> ledger;
    std::vector<GridGroup> grids; // schema 3

    Experiment* find_experiment(const std::string& id);
    const Experiment* find_experiment(const std::string& id) const;
};

// The eight tradeoff axes of methodology phase 7, in their canonical order.
const std::vector<std::string>& tradeoff_axes();

std::string_view to_string(RunOrder o);
std::string_view to_string(StopRule s);
std::string_view to_string(ExperimentStatus s);

// Samples of one arm that count for the verdict (neither warm-up nor discarded), in run order.
std::vector<double> judged_values(const Experiment& e, const std::string& arm, const std::string& metric);
// The same samples themselves (throttled flags, clocks), aligned with judged_values.
std::vector<const Sample*> judged_samples(const Experiment& e, const std::string& arm, const std::string& metric);

} // namespace kwb
