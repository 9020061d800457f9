// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb run STUDY`: runs the study's pending (or stopped) experiments and writes the results into
// STUDY atomically after every finished repetition (spec/cli.md). Everything is checked before
// anything runs, so bad input never leaves a half-started study behind.
#include "builtin_workloads.h"
#include "commands.h"
#include "hardware/device_sheet.h"
#include "hardware/gpu_backend.h"
#include "hardware/nvml_monitor.h"
#include "progress_bar.h"
#include "progress_stream.h"
#include "remote_run.h"
#include "run/aa_history.h"
#include "run/judge_experiment.h"
#include "run/runner.h"
#include "run_devices.h"
#include "sampling/procfs_sampler.h"
#include "sampling/queued_sampler.h"
#include "sampling/sampler_set.h"
#include "stop_signal.h"
#include "study/arm_diff.h"
#include "study/arm_roles.h"
#include "study/device_identity.h"
#include "study/grid.h"
#include "study/new_attempt.h"
#include "study/path_names.h"
#include "study/remote_marker.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "study/study_parts.h"
#include "util/atomic_file.h"
#include "verdict/aa_verdict.h"
#include "verdict/grid_interaction.h"
#include "verdict/verdict.h"
#include "workloads/command/command_workload.h"
#include "workloads/cuda_workload.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>
#include <unistd.h>

namespace kwb::cli {
namespace {

struct RunOptions {
    std::string study;
    std::string backend; // empty: each experiment's own setting
    bool json_progress = false;
    bool new_attempt = false;
    bool no_cupti = false; // CUPTI PM sampling off (NVML and procfs stay)
    int device = 0; // the CUDA device index
    bool new_device = false;
    // Spread-out runs (docs/cluster.md): one experiment into its part file, or every runnable
    // experiment over worker processes, one per listed device.
    std::string cell;
    bool device_given = false;
    std::vector<int> devices;
    RemoteRunOptions remote; // --host, --remote-kwb, --remote-dir, --attach (docs/remote.md)
};

// Notices and results are never worth a run: a closed stderr or stdout (EPIPE, SIGPIPE being
// ignored) must not throw out of the loop that saves the study.
template<typename... Args> void say(std::FILE* to, fmt::format_string<Args...> format, Args&&... args)
{
    try {
        const std::string text = fmt::format(format, std::forward<Args>(args)...);
        std::fputs(text.c_str(), to);
        std::fflush(to);
    } catch (const std::exception&) {
    }
}

// The furthest judged position a study may hold: the order resumes one past it, in an int.
constexpr int kMaxPosition = 1 << 30;

struct Job {
    Experiment* experiment;
    const Workload* workload;
    Backend backend;
};

// Samples kept from an earlier session (or edited by hand) must fit the order the run resumes:
// each names an arm of the experiment, and judged runs hold distinct positions from 0 on.
template<typename Fail> void check_samples(const Experiment& e, const Fail& fail)
{
    std::set<int> positions;
    for (size_t i = 0; i < e.samples.size(); ++i) {
        const Sample& s = e.samples[i];
        const auto problem = [&](const std::string& what) { return fail(fmt::format("samples[{}]: {}", i, what)); };
        if (std::none_of(e.arms.begin(), e.arms.end(), [&](const Arm& a) { return a.name == s.arm; }))
            throw problem(fmt::format("arm '{}' is not one of the experiment's arms", s.arm));
        if (s.warmup)
            continue;
        if (s.position < 0 || s.position > kMaxPosition)
            throw problem(
                fmt::format("position {} is out of range (0 to {} for a judged run)", s.position, kMaxPosition));
        if (!positions.insert(s.position).second)
            throw problem(fmt::format("position {} is taken by an earlier judged sample", s.position));
    }
}

// Checks one experiment and picks its backend; throws BadInput naming the study and experiment.
// Two kinds run: "ab" (a single-variable A/B) and "grid-cell" (one cell of a grid group against
// the baseline cell; its arms may differ in the grid's two variables, nothing else).
Job check(const std::string& path, const Study& study, Experiment& e, const std::string& backend_option)
{
    const auto fail = [&](const std::string& problem) {
        return BadInput(fmt::format("{}: experiment {}: {}", path, e.id, problem));
    };
    const Workload* w = builtin_workloads().find(e.workload);
    if (!w)
        throw fail(fmt::format("unknown workload '{}' (see kwb workloads)", e.workload));
    const bool grid_cell = e.kind == kGridCellKind;
    if ((e.kind != "ab" && !grid_cell) || ab_arm_count(e) != 2)
        throw fail(fmt::format("kwb runs two-arm experiments of kind \"ab\" (a single-variable A/B) or \"{}\" (has "
                               "kind \"{}\", {} arms)",
            kGridCellKind, e.kind, e.arms.size()));
    for (size_t i = 0; i < e.arms.size(); ++i)
        for (size_t j = i + 1; j < e.arms.size(); ++j)
            if (e.arms[i].name == e.arms[j].name)
                throw fail(
                    fmt::format("two arms are named '{}'; their samples could not be told apart", e.arms[i].name));
    if (const Arm* aa = aa_arm(e)) // the real A/A runs the baseline's configuration, nothing else
        if (aa->params != e.arms[0].params || aa->command.has_value() != e.arms[0].command.has_value()
            || (aa->command && aa->command->cmd != e.arms[0].command->cmd))
            throw fail(fmt::format("the A/A arm '{}' must run the baseline's configuration (its params and "
                                   "command equal to arm {}'s)",
                aa->name, e.arms[0].name));
    check_samples(e, fail);
    const auto metrics = w->metrics();
    // A command's metrics are what its adapter reads (the tool's own keys too): a missing one fails
    // each repetition with a note naming what was read instead (docs/adapters.md).
    if (w->name() != command::kCommandWorkload
        && std::none_of(metrics.begin(), metrics.end(), [&](const MetricSpec& m) { return m.name == e.metric; }))
        throw fail(fmt::format("{} has no metric '{}'", w->name(), e.metric));
    nlohmann::json resolved[2];
    for (size_t i = 0; i < 2; ++i) {
        try {
            resolved[i] = resolve_params(*w, e.arms[i].params);
        } catch (const WorkloadError& ex) {
            throw fail(fmt::format("arm {}: {}", e.arms[i].name, ex.what()));
        }
    }
    const ArmDiff diff = diff_arms(resolved[0], resolved[1]);
    if (grid_cell) {
        if (const auto problem = grid_cell_problem(study, e, resolved[0], resolved[1]); !problem.empty())
            throw fail(problem);
    } else if (!diff.single_variable() && !e.acknowledged_multi_variable)
        throw fail(
            fmt::format("the arms differ in {} parameters ({}); a single-variable A/B changes one, so the result "
                        "could not be attributed. Set acknowledged_multi_variable to run it anyway",
                diff.differences.size(), diff.names()));
    // Command arms carry no parameters: their commands are what differs (study/arm_diff.h).
    const bool commands = e.arms[0].command && e.arms[1].command;
    if ((commands ? diff_arm_pair(e.arms[0], e.arms[1]) : diff).differences.empty())
        say(stderr, "kwb: {}: experiment {}: the arms are identical (an A/A run)\n", path, e.id);
    try {
        experiment_profile(e, Direction::Lower); // the runner's own call: throws on an unknown profile or override
    } catch (const std::invalid_argument& ex) {
        throw fail(fmt::format("profile: {}", ex.what()));
    }

    std::string wanted = backend_option.empty() ? e.backend : backend_option;
    if (wanted != "auto" && wanted != "cpu" && wanted != "cuda")
        throw fail(fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", wanted));
    if (!has_backend(*w, Backend::Cpu)) { // a cuda-only workload (attention_decode)
        if (wanted == "cpu")
            throw fail(fmt::format("{} has no cpu backend", w->name()));
        wanted = "cuda";
    }
    Backend backend = Backend::Cpu;
    const auto fits = [&](Backend b) {
        return params_fit_backend(*w, e.arms[0].params, b) && params_fit_backend(*w, e.arms[1].params, b);
    };
    if (wanted == "cuda") {
        if (!has_backend(*w, Backend::Cuda))
            throw fail(fmt::format("{} has no cuda backend", w->name()));
        if (const auto why = cuda_unavailable_reason(w->name()); !why.empty())
            throw std::runtime_error(
                fmt::format("{}: experiment {}: the cuda backend is not available here: {}", path, e.id, why));
        backend = Backend::Cuda;
    } else if (wanted == "auto" && has_backend(*w, Backend::Cuda) && fits(Backend::Cuda)
        && cuda_unavailable_reason(w->name()).empty()) {
        backend = Backend::Cuda;
    }
    // Parameters the chosen backend lacks, and configurations the GPU cannot hold, are bad input
    // found before anything runs ("block 256x256x64, 4 stages needs 256 KiB of shared memory").
    for (size_t i = 0; i < 2; ++i) {
        nlohmann::json params;
        try {
            params = resolve_params(*w, e.arms[i].params, backend);
        } catch (const WorkloadError& ex) {
            throw fail(fmt::format("arm {}: {}", e.arms[i].name, ex.what()));
        }
        if (backend == Backend::Cuda)
            if (const auto why = check_cuda_config(w->name(), params, selected_cuda_device()); !why.empty())
                throw fail(fmt::format("arm {}: {}", e.arms[i].name, why));
    }
    // Samples of one experiment must come from one backend: resuming on another would mix them.
    const bool has_samples = std::any_of(e.samples.begin(), e.samples.end(), [](const Sample& s) { return !s.warmup; });
    if (has_samples && (e.backend == "cpu" || e.backend == "cuda") && e.backend != to_string(backend))
        throw fail(fmt::format("its samples were taken on {}; resume it with --backend {}", e.backend, e.backend));
    return {&e, w, backend};
}

// The identity of the device a backend runs on here: the CPU, or CUDA device `index`.
DeviceIdentity device_here(Backend backend, int index)
{
    if (backend == Backend::Cpu) {
        for (const auto& d : collect_devices().devices)
            if (d.value("kind", "") == "cpu")
                return identity_from_sheet(d);
        return {"cpu", "unknown CPU", "", std::nullopt, ""};
    }
    const auto* api = GpuBackend::instance().api();
    const auto devices = nlohmann::json::parse(api ? api->devices_json() : "[]", nullptr, false);
    if (devices.is_array())
        for (const auto& d : devices)
            if (d.value("index", -1) == index)
                return identity_from_sheet(d);
    throw BadInput(fmt::format("--device: there is no CUDA device {} here", index));
}

// An experiment holds the samples of one device model: continuing it on another would judge two
// populations as one. Refused, or with --new-device continued as a new experiment that says so.
Experiment* match_device(Study& study, Experiment& e, const DeviceIdentity& here, const RunOptions& o)
{
    const bool has_samples = std::any_of(e.samples.begin(), e.samples.end(), [](const Sample& s) { return !s.warmup; });
    if (!has_samples || same_device(e.device, here)) {
        e.device = here;
        return &e;
    }
    if (!o.new_device)
        throw BadInput(fmt::format("{}: experiment {} was measured on {} and this is {}; its samples cannot be "
                                   "continued on another device (use --new-device to start a new experiment here)",
            o.study, e.id, describe(e.device), describe(here)));
    Experiment next = fresh_attempt(e);
    next.id = unique_experiment_id(study, e.id, static_cast<int>(study.experiments.size()) + 1);
    next.device = here;
    next.controls.notes += fmt::format("{}continues experiment {} (measured on {}) on {}: a new experiment, since "
                                       "samples of two device models are never judged together.",
        next.controls.notes.empty() ? "" : " ", e.id, describe(e.device), describe(here));
    if (e.status == ExperimentStatus::Stopped || e.status == ExperimentStatus::Running)
        e.status = ExperimentStatus::Done; // it is not resumed any more: judged as it stands
    study.experiments.push_back(std::move(next));
    return &study.experiments.back();
}

// What a GPU run records beside the workload's numbers: NVML clocks and throttle reasons per
// repetition, NVTX ranges for nsys. Where NVML is missing the run goes on, says so once, and
// stamps the limitation on the experiment.
class GpuRunSupport {
public:
    GpuRunSupport(Experiment& e, Backend backend)
    {
        if (backend != Backend::Cuda)
            return;
        if (const auto* api = GpuBackend::instance().api(); api && api->range_push && api->range_pop)
            tracer_ = {[api](const std::string& name) { api->range_push(name.c_str()); }, [api] { api->range_pop(); }};
        const auto& nvml = nvml::Library::instance();
        std::optional<nvml::Device> device = nvml.device_by_uuid(e.device.uuid);
        if (device) {
            monitor_ = std::make_unique<NvmlRepetitionMonitor>(*device);
            return;
        }
        const std::string why
            = nvml.available() ? fmt::format("NVML has no device {}", e.device.uuid) : nvml.unavailable_reason();
        const std::string limitation
            = fmt::format("no NVML ({}): clocks, power and throttle reasons not recorded", why);
        say(stderr, "kwb: {}: {}\n", e.id, limitation);
        if (std::find(e.limitations.begin(), e.limitations.end(), limitation) == e.limitations.end())
            e.limitations.push_back(limitation);
    }
    RepetitionMonitor* monitor() const { return monitor_.get(); }
    const RangeTracer& tracer() const { return tracer_; }

private:
    std::unique_ptr<NvmlRepetitionMonitor> monitor_;
    RangeTracer tracer_;
};

// `kwb run STUDY --cell ID`: the part to run. An existing part is resumed when it holds every
// sample the study holds for that experiment; otherwise (none yet, or the study moved on since)
// a fresh part is made from the study's copy.
Study load_cell(const RunOptions& o, const std::string& file)
{
    const Study source = load_study(o.study);
    const Experiment* original = source.find_experiment(o.cell);
    if (!original)
        throw BadInput(fmt::format("{}: --cell: the study has no experiment '{}'", o.study, o.cell));
    if (std::filesystem::exists(file)) {
        Study part = load_study(file);
        if (const auto problem = part_problem(part, o.cell); !problem.empty())
            throw BadInput(fmt::format("{}: {}", file, problem));
        if (holds_all_samples_of(part.experiments[0], *original))
            return part;
        say(stderr, "kwb: {}: the study holds samples this part lacks; starting the part again from the study\n", file);
    }
    return make_part(source, o.cell);
}

// Where a spread-out run ran: the --devices entry, this host, the Slurm array task.
Placement placement_here(const RunOptions& o)
{
    Placement p;
    if (o.device_given)
        p.device = o.device;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0)
        p.host = host;
    const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
    const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
    const char* job = std::getenv("SLURM_JOB_ID");
    if (array_job && array_task)
        p.slurm_job = fmt::format("{}_{}", array_job, array_task);
    else if (job)
        p.slurm_job = job;
    return p;
}

void print_result(const Experiment& e)
{
    if (!e.final_verdict || !e.verdict) {
        say(stdout, "{}: {} ({}), no verdict\n", e.id, to_string(e.status), e.stop_reason);
        return;
    }
    const SampleVerdict& v = *e.verdict;
    const auto num = [](const std::optional<double>& x) { return x ? fmt::format("{:.4g}", *x) : std::string("-"); };
    say(stdout, "{}: n = {}/{}, delta {}%, sigma {}%; sample verdict {}; final verdict {}\n", e.id, v.n_baseline(),
        v.n_treatment(), num(v.delta_pct), num(v.sigma_pct), to_string(v.word), to_string(e.final_verdict->word));
    const std::string aa = e.aa_verdict ? aa_summary(*e.aa_verdict) : std::string();
    if (!aa.empty()) // beside the A/B's verdict, so not again among the reasons
        say(stdout, "{}: {}{}\n", e.id, aa, aa_false_alarm(*e.aa_verdict) ? " (a false alarm)" : "");
    for (const auto& r : e.final_verdict->reasons)
        if (aa.empty() || !r.starts_with(aa))
            say(stdout, "  - {}\n", r);
}

// A finished experiment's real A/A joins its device's history (run/aa_history.h), and the
// device's false-alarm rate over that history is reported. A history that cannot be kept is
// said on stderr; it never fails the run (the study holds the A/A verdict either way).
void record_aa(const RunOptions& o, const Experiment& e, ProgressStreamWriter* stream)
{
    const auto entry = aa_history_entry(o.study, e);
    if (!entry)
        return;
    std::optional<AaFalseAlarmRate> rate;
    std::string problem;
    try {
        const auto path = aa_history_path();
        append_aa_history(path, *entry);
        rate = aa_false_alarm_rate(read_aa_history(path), e.device);
    } catch (const std::exception& ex) {
        problem = ex.what();
        say(stderr, "kwb: {}: the A/A history was not kept: {}\n", e.id, problem);
    }
    if (stream)
        stream->on_aa_history(e, rate, problem);
    else if (rate)
        say(stdout, "{}: {}\n", e.id, describe(*rate));
}

// `kwb run STUDY --devices 0,1,...`: the parent of worker processes (run_devices.h); every
// experiment is checked here first, as a plain run would, so bad input stops all before any runs.
int run_devices(const RunOptions& o)
{
    DevicesRunRequest request;
    request.study = o.study;
    request.devices = o.devices;
    request.backend = o.backend;
    request.json_progress = o.json_progress;
    request.no_cupti = o.no_cupti;
    const auto check_one = [&o](const Study& study, Experiment& e) {
        const Job job = check(o.study, study, e, o.backend);
        if (job.backend == Backend::Cuda)
            for (const int d : o.devices)
                device_here(Backend::Cuda, d); // throws naming a device that is not here
        return std::string(to_string(job.backend));
    };
    return run_on_devices(request, check_one);
}

int run(const RunOptions& o)
{
    if (!o.devices.empty())
        return run_devices(o);
    // Where the results go: the study, or with --cell the experiment's part file beside it.
    const std::string file = o.cell.empty() ? o.study : part_path(o.study, o.cell).string();
    if (!o.cell.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(parts_dir(o.study), ec);
        if (ec)
            throw BadInput(fmt::format(
                "{}: cannot create the folder of part files: {}", parts_dir(o.study).string(), ec.message()));
    }
    // A signal from here until the first repetition exits 130 at once: loading a big study or
    // checking it can take seconds, and nothing measured is in flight yet.
    const std::atomic<bool>& stop = install_stop_signals();
    set_exit_at_once(true);
    // One writer per study: taken before the study is read, so a second run can neither load a
    // copy that goes stale nor save over this one's samples.
    LockHolder holder;
    std::optional<StudyLock> lock;
    try {
        lock = StudyLock::try_acquire(file, &holder);
    } catch (const std::exception& e) {
        throw BadInput(fmt::format("{} (kwb run locks the study while it runs)", e.what()));
    }
    if (!lock)
        throw BadInput(fmt::format(
            "{}: is being run by {} (one kwb run per study; wait for it or stop it)", file, holder.describe()));
    set_exit_cleanup_path(study_lock_path(file).string());
    struct ReleaseAtExit {
        ~ReleaseAtExit() { set_exit_cleanup_path(""); }
    } release_at_exit;
    // A study handed to a remote host is that run's until it comes back (study/remote_marker.h).
    if (const std::string away = remote_run_refusal(o.study); !away.empty())
        throw BadInput(fmt::format("{}: {}", o.study, away));
    // Holding the lock, no other kwb saves this study: temporary files beside it whose process is
    // gone are what a killed save left behind.
    for (const auto& leftover : remove_stale_temporaries(file))
        say(stderr, "kwb: removed {}, left by a save that was cut short\n", leftover.string());
    if (stop.load())
        return kStopped;
    Study study;
    try {
        study = o.cell.empty() ? load_study(o.study) : load_cell(o, file);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    if (o.new_attempt) {
        // What Run does in the window on a finished study (study/new_attempt.h).
        if (study.experiments.empty())
            throw BadInput(fmt::format("{}: --new-attempt: the study has no experiment to attempt again", o.study));
        if (has_runnable_experiment(study))
            throw BadInput(fmt::format("{}: --new-attempt: the study is not finished (an experiment is pending or "
                                       "stopped); kwb run without --new-attempt resumes it",
                o.study));
        const std::string source = study.experiments[static_cast<size_t>(new_attempt_source(study))].id;
        std::string list;
        for (const auto& id : new_attempt_if_finished(study))
            list += fmt::format("{}{}", list.empty() ? "" : ", ", id);
        say(stderr, "kwb: {}: new attempt of {}: {}\n", o.study, source, list);
    }
    if (o.device < 0)
        throw BadInput("--device: a CUDA device index is 0 or more");
    select_cuda_device(o.device);
    // Checked by index: --new-device appends experiments, which moves the others in memory.
    std::vector<std::pair<size_t, Job>> checked;
    const size_t existing = study.experiments.size();
    for (size_t i = 0; i < existing; ++i)
        if (is_runnable(study.experiments[i])) {
            Job job = check(o.study, study, study.experiments[i], o.backend);
            const DeviceIdentity here = device_here(job.backend, o.device);
            const Experiment* target = match_device(study, study.experiments[i], here, o);
            checked.emplace_back(static_cast<size_t>(target - study.experiments.data()), job);
        }
    std::vector<Job> jobs;
    if (!o.cell.empty() && !checked.empty())
        study.experiments[0].placement = placement_here(o);
    for (auto& [index, job] : checked) {
        job.experiment = &study.experiments[index];
        jobs.push_back(job);
    }

    // A study that could not be saved is found before anything runs, like any other bad input.
    if (!jobs.empty()) {
        try {
            check_replaceable(file);
        } catch (const std::exception& e) {
            throw BadInput(fmt::format("{} (kwb run saves its results into the study)", e.what()));
        }
    }
    // A reader that closes the pipe (`| head -1`, a GUI that died) must not kill kwb between a
    // repetition and its save: ignore SIGPIPE, and let the stream stop the run cleanly instead.
    std::signal(SIGPIPE, SIG_IGN);
    std::unique_ptr<ProgressStreamWriter> stream;
    std::unique_ptr<ProgressBar> bar;
    FanOutObserver observer;
    if (o.json_progress) {
        stream = std::make_unique<ProgressStreamWriter>(
            stdout, file, [] { request_stop(); }, &stop);
        observer.add(stream.get());
    } else if (o.cell.empty() && isatty(STDERR_FILENO)) { // workers of a spread-out run share the terminal
        bar = std::make_unique<ProgressBar>(stderr);
        observer.add(bar.get());
    }
    if (jobs.empty()) {
        say(stderr, "kwb: {}: no pending experiments (done and failed ones are not rerun)\n", o.study);
        observer.on_end("done", kOk);
        return kOk;
    }

    // Samplers are chosen once per process: CUPTI's configuration costs 70-380 ms, and what cannot
    // run (no CUPTI, counters restricted to admins, no NVML) is said here, before any repetition.
    bool any_gpu = false;
    std::string gpu_uuid;
    for (const auto& job : jobs)
        if (job.backend == Backend::Cuda && !any_gpu) {
            any_gpu = true;
            gpu_uuid = job.experiment->device.uuid;
        }
    SamplerChoice choice;
    choice.gpu = any_gpu;
    if (any_gpu) {
        const auto& backend = GpuBackend::instance();
        choice.api = backend.api();
        choice.api_reason = backend.unavailable_reason();
        choice.device = selected_cuda_device();
        choice.cupti = !o.no_cupti;
        choice.gpu_uuid = gpu_uuid;
    }
    SamplerSet samplers = choose_samplers(choice);
    for (const auto& why : samplers.limitations)
        say(stderr, "kwb: {}\n", why);
    RunnerOptions options;
    options.cancel = &stop;
    options.samplers = samplers.pointers();
    options.observer = &observer;
    // A repetition and the save that keeps it are protected: a signal then waits for them (the
    // run stops at the next boundary); anywhere else it exits 130 at once (see stop_signal.h).
    options.before_repetition = [] { set_protected(true); };
    options.checkpoint = [&] {
        set_protected(true);
        save_study(study, file);
        set_protected(false);
    };
    const auto t0 = std::chrono::steady_clock::now();
    options.run_started_s = std::chrono::duration<double>(t0.time_since_epoch()).count();

    // From here a signal only sets the flag: the run stops at the next boundary, saves, ends the
    // stream with `stopped` and exits 130 (docs/cli.md). The computations inside a run are
    // bounded (plan limits; the large-n bootstrap interval), so the boundary comes soon.
    set_exit_at_once(false);
    int code = kOk;
    std::string status = "done";
    try {
        for (const auto& job : jobs) {
            if (stop.load()) {
                status = "stopped";
                code = kStopped;
                break;
            }
            Experiment& e = *job.experiment;
            options.backend = job.backend;
            study.hardware.device_in_use = e.device.model;
            GpuRunSupport gpu(e, job.backend);
            options.monitor = gpu.monitor();
            options.tracer = gpu.tracer();
            if (job.backend == Backend::Cuda || !any_gpu)
                for (const auto& why : samplers.limitations)
                    if (std::find(e.limitations.begin(), e.limitations.end(), why) == e.limitations.end())
                        e.limitations.push_back(why);
            Runner runner(*job.workload, options);
            const RunOutcome outcome = runner.run(study, e);
            for (auto* queued : {samplers.cupti, samplers.nvml}) {
                if (!queued)
                    continue;
                for (auto& why : queued->limitations())
                    e.limitations.push_back(std::move(why));
            }
            if (!e.missing_gates.empty()) {
                std::string gates;
                for (const auto& g : e.missing_gates)
                    gates += fmt::format("{}{}", gates.empty() ? "" : "; ", g.substr(0, g.find(':')));
                say(stderr, "kwb: {}: gates not met, recorded in the study: {}\n", e.id, gates);
            }
            if (!o.json_progress)
                print_result(e);
            if (outcome == RunOutcome::Done)
                record_aa(o, e, stream.get());
            if (!e.group.empty() && o.cell.empty()) {
                // A cell judged: its grid's interaction is estimated again (null while a cell is pending).
                if (GridGroup* grid = find_grid(study, e.group)) {
                    judge_grid(study, *grid);
                    save_study(study, file);
                    if (!o.json_progress && grid->interaction.is_object()) {
                        say(stdout, "{}: interaction: {}\n", grid->id, grid->interaction.value("summary", ""));
                        if (const auto aa = grid_aa_line(study, *grid); !aa.empty()) // the grid's A/A beside it
                            say(stdout, "{}: {}\n", grid->id, aa);
                    }
                }
            }
            if (outcome == RunOutcome::Failed) {
                say(stderr, "kwb: {}: experiment {} failed: {}\n", o.study, e.id, e.error);
                status = "failed";
                code = kRunFailed;
                break;
            }
            if (outcome == RunOutcome::Stopped) {
                say(stderr, "kwb: {}: stopped {}; {} kept\n", o.study,
                    stop_signal_number() ? "by a signal" : "because the progress stream's reader went away",
                    e.samples.size() == 1 ? "1 sample" : fmt::format("{} samples", e.samples.size()));
                status = "stopped";
                code = kStopped;
                break;
            }
        }
    } catch (const std::exception& ex) {
        // A save that failed, or an experiment that cannot run: say so in the stream too.
        observer.on_error(ex.what(), false);
        observer.on_end("failed", kRunFailed);
        throw;
    }
    observer.on_end(status, code);
    return code;
}

} // namespace

void add_run_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("run", "Run a study's pending experiments, saving after every repetition");
    auto o = std::make_shared<RunOptions>();
    cmd->add_option("STUDY", o->study, "The study file (results are written back into it)")->required();
    cmd->add_option("--backend", o->backend, "auto, cpu or cuda (default: each experiment's own setting)")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_flag("--json-progress", o->json_progress, "Write the progress stream (JSON lines) on stdout");
    cmd->add_flag("--new-attempt", o->new_attempt,
        "A finished study: run a new attempt of its last experiment (kept beside the earlier ones)");
    cmd->add_flag("--no-cupti", o->no_cupti, "GPU runs: no CUPTI PM sampling (NVML and CPU lanes stay)");
    cmd->add_option("--device", o->device, "The CUDA device to run on (default 0)");
    auto* new_device = cmd->add_flag("--new-device", o->new_device,
        "Continue an experiment measured on another device model as a new experiment on this one");
    auto* cell = cmd->add_option("--cell", o->cell,
                        "Run only this experiment (a grid cell), into its part file STUDY.parts/ID.json (kwb collect "
                        "folds it)")
                     ->check(
                         [](const std::string& id) { // before anything is made of it: "../x" names no part
                             const auto problem = path_name_problem(id);
                             return problem.empty() ? std::string()
                                                    : fmt::format("the experiment id {} {}", shown_name(id), problem);
                         },
                         "ID");
    auto* devices = cmd->add_option("--devices", o->devices,
                           "Run independent experiments in parallel, one worker process per listed device (CUDA "
                           "indices; CPU runs: worker slots), e.g. 0,1")
                        ->delimiter(',')
                        ->check(CLI::NonNegativeNumber);
    devices->excludes(cell)->excludes(new_device)->excludes("--device")->excludes("--new-attempt");
    cell->excludes(new_device)->excludes("--new-attempt");
    auto* host = cmd->add_option("--host", o->remote.host,
        "Run on this ssh destination (as ssh understands it; KWB_SSH replaces the ssh command): the study is sent, "
        "runs there detached, and comes back when the run ends");
    cmd->add_option(
        "--remote-kwb", o->remote.remote_kwb, "With --host: the kwb program there (default: kwb on its PATH)");
    cmd->add_option("--remote-dir", o->remote.remote_dir,
        "With --host: the folder there for remote runs (default .kwb/runs under the remote home)");
    auto* attach = cmd->add_flag("--attach", o->remote.attach,
        "Follow the remote run that owns the study (after a dropped connection), or fetch it when it has ended");
    // A part file belongs beside its study: a cell runs where the study is.
    host->excludes(cell);
    attach->excludes(cell);
    cmd->callback([&action, o, cmd] {
        o->device_given = cmd->count("--device") > 0;
        if (o->remote.host.empty() && !o->remote.attach) {
            action = [o] { return run(*o); };
            return;
        }
        o->remote.study = o->study;
        o->remote.json_progress = o->json_progress;
        // The run's own options go to the remote kwb as given.
        for (const char* name : {"--backend", "--device", "--devices"})
            if (cmd->count(name) > 0) {
                std::string values;
                for (const auto& value : cmd->get_option(name)->results())
                    values += (values.empty() ? "" : ",") + value;
                o->remote.run_arguments.insert(o->remote.run_arguments.end(), {name, values});
            }
        for (const char* name : {"--new-attempt", "--no-cupti", "--new-device"})
            if (cmd->count(name) > 0)
                o->remote.run_arguments.emplace_back(name);
        action = [o] { return run_remote(o->remote); };
    });
}

} // namespace kwb::cli
