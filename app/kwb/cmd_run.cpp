// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb run STUDY`: runs the study's pending (or stopped) experiments and writes the results into
// STUDY atomically after every finished repetition (spec/cli.md). Everything is checked before
// anything runs, so bad input never leaves a half-started study behind.
#include "commands.h"

#include "builtin_workloads.h"
#include "hardware/gpu_backend.h"
#include "progress_bar.h"
#include "progress_stream.h"
#include "run/judge_experiment.h"
#include "run/runner.h"
#include "workloads/cuda_workload.h"
#include "sampling/procfs_sampler.h"
#include "sampling/queued_sampler.h"
#include "sampling/sampler_set.h"
#include "stop_signal.h"
#include "study/arm_diff.h"
#include "study/study_file.h"
#include "util/atomic_file.h"
#include "verdict/verdict.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <set>

namespace kwb::cli {
namespace {

struct RunOptions {
    std::string study;
    std::string backend;   // empty: each experiment's own setting
    bool json_progress = false;
    bool no_cupti = false;   // CUPTI PM sampling off (NVML and procfs stay)
};

// Notices and results are never worth a run: a closed stderr or stdout (EPIPE, SIGPIPE being
// ignored) must not throw out of the loop that saves the study.
template <typename... Args>
void say(std::FILE* to, fmt::format_string<Args...> format, Args&&... args)
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

bool runnable(const Experiment& e)
{
    return e.status == ExperimentStatus::Pending || e.status == ExperimentStatus::Stopped ||
           e.status == ExperimentStatus::Running;   // "running" in a file: a run that crashed; resume it
}

struct Job {
    Experiment* experiment;
    const Workload* workload;
    Backend backend;
};

// Samples kept from an earlier session (or edited by hand) must fit the order the run resumes:
// each names an arm of the experiment, and judged runs hold distinct positions from 0 on.
template <typename Fail>
void check_samples(const Experiment& e, const Fail& fail)
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
            throw problem(fmt::format("position {} is out of range (0 to {} for a judged run)", s.position, kMaxPosition));
        if (!positions.insert(s.position).second)
            throw problem(fmt::format("position {} is taken by an earlier judged sample", s.position));
    }
}

// Checks one experiment and picks its backend; throws BadInput naming the study and experiment.
Job check(const std::string& path, Experiment& e, const std::string& backend_option)
{
    const auto fail = [&](const std::string& problem) {
        return BadInput(fmt::format("{}: experiment {}: {}", path, e.id, problem));
    };
    const Workload* w = builtin_workloads().find(e.workload);
    if (!w)
        throw fail(fmt::format("unknown workload '{}' (see kwb workloads)", e.workload));
    if (e.kind != "ab" || e.arms.size() != 2)
        throw fail(fmt::format("a single-variable A/B needs kind \"ab\" and two arms (has kind \"{}\", {} arms)", e.kind,
                               e.arms.size()));
    if (e.arms[0].name == e.arms[1].name)
        throw fail(fmt::format("both arms are named '{}'; their samples could not be told apart", e.arms[0].name));
    check_samples(e, fail);
    const auto metrics = w->metrics();
    if (std::none_of(metrics.begin(), metrics.end(), [&](const MetricSpec& m) { return m.name == e.metric; }))
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
    if (!diff.single_variable() && !e.acknowledged_multi_variable)
        throw fail(fmt::format("the arms differ in {} parameters ({}); a single-variable A/B changes one, so the result "
                               "could not be attributed. Set acknowledged_multi_variable to run it anyway",
                               diff.differences.size(), diff.names()));
    if (diff.differences.empty())
        say(stderr, "kwb: {}: experiment {}: the arms are identical (an A/A run)\n", path, e.id);
    try {
        experiment_profile(e, Direction::Lower);   // the runner's own call: throws on an unknown profile or override
    } catch (const std::invalid_argument& ex) {
        throw fail(fmt::format("profile: {}", ex.what()));
    }

    const std::string wanted = backend_option.empty() ? e.backend : backend_option;
    if (wanted != "auto" && wanted != "cpu" && wanted != "cuda")
        throw fail(fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", wanted));
    Backend backend = Backend::Cpu;
    if (wanted == "cuda") {
        if (!has_backend(*w, Backend::Cuda))
            throw fail(fmt::format("{} has no cuda backend", w->name()));
        if (!GpuBackend::instance().api())
            throw std::runtime_error(fmt::format("{}: experiment {}: the GPU backend is not available: {}", path, e.id,
                                                 GpuBackend::instance().unavailable_reason()));
        backend = Backend::Cuda;
    } else if (wanted == "auto" && has_backend(*w, Backend::Cuda) && GpuBackend::instance().api()) {
        backend = Backend::Cuda;
    }
    // Samples of one experiment must come from one backend: resuming on another would mix them.
    const bool has_samples = std::any_of(e.samples.begin(), e.samples.end(), [](const Sample& s) { return !s.warmup; });
    if (has_samples && (e.backend == "cpu" || e.backend == "cuda") && e.backend != to_string(backend))
        throw fail(fmt::format("its samples were taken on {}; resume it with --backend {}", e.backend, e.backend));
    return {&e, w, backend};
}

std::string device_name(const Study& study, Backend backend)
{
    for (const auto& d : study.hardware.devices)
        if (d.is_object() && d.value("kind", "") == (backend == Backend::Cuda ? "cuda" : "cpu"))
            return d.value("name", "");
    return "";
}

void print_result(const Experiment& e)
{
    if (!e.final_verdict.is_object()) {
        say(stdout, "{}: {} ({}), no verdict\n", e.id, to_string(e.status), e.stop_reason);
        return;
    }
    const auto& v = e.verdict;
    const auto num = [&](const char* key) {
        return v.contains(key) && v[key].is_number() ? fmt::format("{:.4g}", v[key].get<double>()) : std::string("-");
    };
    say(stdout, "{}: n = {}/{}, delta {}%, sigma {}%; sample verdict {}; final verdict {}\n", e.id,
               v.value("n_baseline", 0), v.value("n_treatment", 0), num("delta_pct"), num("sigma_pct"),
               v.value("verdict", ""), e.final_verdict.value("verdict", ""));
    for (const auto& r : e.final_verdict.value("reasons", nlohmann::json::array()))
        say(stdout, "  - {}\n", r.get<std::string>());
}

int run(const RunOptions& o)
{
    Study study;
    try {
        study = load_study(o.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    std::set<std::string> ids;
    for (const auto& e : study.experiments)
        if (!ids.insert(e.id).second)
            throw BadInput(fmt::format("{}: two experiments have the id '{}'; ids must be unique in a study", o.study, e.id));
    std::vector<Job> jobs;
    for (auto& e : study.experiments)
        if (runnable(e))
            jobs.push_back(check(o.study, e, o.backend));

    // A study that could not be saved is found before anything runs, like any other bad input.
    if (!jobs.empty()) {
        try {
            check_replaceable(o.study);
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
        stream = std::make_unique<ProgressStreamWriter>(stdout, o.study, [] { request_stop(); });
        observer.add(stream.get());
    } else if (isatty(STDERR_FILENO)) {
        bar = std::make_unique<ProgressBar>(stderr);
        observer.add(bar.get());
    }
    if (jobs.empty()) {
        say(stderr, "kwb: {}: no pending experiments (done and failed ones are not rerun)\n", o.study);
        observer.on_end("done", kOk);
        return kOk;
    }

    const std::atomic<bool>& stop = install_stop_signals();
    // Samplers are chosen once per process: CUPTI's configuration costs 70-380 ms, and what cannot
    // run (no CUPTI, counters restricted to admins, no NVML) is said here, before any repetition.
    bool any_gpu = false;
    for (const auto& job : jobs)
        any_gpu = any_gpu || job.backend == Backend::Cuda;
    SamplerChoice choice;
    choice.gpu = any_gpu;
    if (any_gpu) {
        const auto& backend = GpuBackend::instance();
        choice.api = backend.api();
        choice.api_reason = backend.unavailable_reason();
        choice.device = selected_cuda_device();
        choice.cupti = !o.no_cupti;
    }
    SamplerSet samplers = choose_samplers(choice);
    for (const auto& why : samplers.limitations)
        say(stderr, "kwb: {}\n", why);
    RunnerOptions options;
    options.cancel = &stop;
    options.samplers = samplers.pointers();
    options.observer = &observer;
    options.checkpoint = [&] { save_study(study, o.study); };
    const auto t0 = std::chrono::steady_clock::now();
    options.run_started_s = std::chrono::duration<double>(t0.time_since_epoch()).count();

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
            study.hardware.device_in_use = device_name(study, job.backend);
            if (job.backend == Backend::Cuda || !any_gpu)
                for (const auto& why : samplers.limitations)
                    if (std::find(e.limitations.begin(), e.limitations.end(), why) == e.limitations.end())
                        e.limitations.push_back(why);
            Runner runner(*job.workload, options);
            const RunOutcome outcome = runner.run(study, e);
            for (auto* queued : {samplers.cupti, samplers.nvml}) {
                if (!queued)
                    continue;
                if (queued->overflow() > 0)
                    e.limitations.push_back(fmt::format("{} sampler: {} of {} readings lost to a full queue", queued->name(),
                                                        queued->overflow(), queued->decoded()));
                if (!queued->error().empty())
                    e.limitations.push_back(fmt::format("{} sampler stopped: {}", queued->name(), queued->error()));
            }
            if (!e.missing_gates.empty()) {
                std::string gates;
                for (const auto& g : e.missing_gates)
                    gates += fmt::format("{}{}", gates.empty() ? "" : "; ", g.substr(0, g.find(':')));
                say(stderr, "kwb: {}: gates not met, recorded in the study: {}\n", e.id, gates);
            }
            if (!o.json_progress)
                print_result(e);
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
    cmd->add_flag("--no-cupti", o->no_cupti, "GPU runs: no CUPTI PM sampling (NVML and CPU lanes stay)");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
