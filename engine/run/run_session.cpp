// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/run_session.h"

#include "hardware/cuobjdump.h"
#include "hardware/device_sheet.h"
#include "hardware/gpu_backend.h"
#include "hardware/nvml.h"
#include "hardware/nvml_monitor.h"
#include "run/continue_run.h"
#include "run/driver_kernels.h"
#include "run/git_prepare.h"
#include "run/visible_gpu.h"
#include "sampling/nvml_source.h"
#include "sampling/queued_sampler.h"
#include "sampling/sampler_set.h"
#include "study/arm_roles.h"
#include "study/device_identity.h"
#include "study/git_arm.h"
#include "study/grid.h"
#include "study/kernel_inventory.h"
#include "study/new_attempt.h"
#include "study/path_names.h"
#include "study/study_file.h"
#include "verdict/grid_interaction.h"
#include "verdict/kernel_code.h"
#include "workloads/cuda_workload.h"
#include "workloads/worker/worker_workload.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <set>

namespace kwb {
namespace {

void add_limitation(Experiment& e, const std::string& why)
{
    if (std::find(e.limitations.begin(), e.limitations.end(), why) == e.limitations.end())
        e.limitations.push_back(why);
}

// What a GPU run records beside the workload's numbers: NVML clocks and throttle reasons per
// repetition, NVTX ranges for nsys. Where NVML is missing the run goes on, says so once, and
// stamps the limitation on the experiment.
class GpuRunSupport {
public:
    GpuRunSupport(Experiment& e, Backend backend, const std::function<void(const std::string&)>& notice)
    {
        if (backend != Backend::Cuda)
            return;
        if (const auto* api = GpuBackend::instance().api(); api && api->range_push && api->range_pop)
            tracer_ = {[api](const std::string& name) { api->range_push(name.c_str()); }, [api] { api->range_pop(); }};
        const auto& nvml = nvml::Library::instance();
        std::optional<nvml::Device> device = nvml.device_by_uuid(e.device.uuid);
        if (device) {
            warn_if_shared(e, *device, notice);
            monitor_ = std::make_unique<NvmlRepetitionMonitor>(*device);
            return;
        }
        const std::string why
            = nvml.available() ? fmt::format("NVML has no device {}", e.device.uuid) : nvml.unavailable_reason();
        const std::string limitation
            = fmt::format("no NVML ({}): clocks, power and throttle reasons not recorded", why);
        if (notice)
            notice(fmt::format("{}: {}", e.id, limitation));
        add_limitation(e, limitation);
    }
    RepetitionMonitor* monitor() const { return monitor_.get(); }

    // Said before the first repetition, and the run goes on: the process may end before it
    // matters, and each repetition it overlaps is counted in the verdict (verdict/gpu_sharing.h).
    static void warn_if_shared(
        const Experiment& e, const nvml::Device& device, const std::function<void(const std::string&)>& notice)
    {
        const auto others = foreign_compute_processes(device);
        if (others.empty() || !notice)
            return;
        std::string pids;
        for (unsigned pid : others)
            pids += fmt::format("{}{}", pids.empty() ? "" : ", ", pid);
        notice(fmt::format("{}: warning: another process is using the GPU (pid {}): every repetition it overlaps "
                           "makes the verdict INCONCLUSIVE",
            e.id, pids));
    }
    const RangeTracer& tracer() const { return tracer_; }

private:
    std::unique_ptr<NvmlRepetitionMonitor> monitor_;
    RangeTracer tracer_;
};

} // namespace

DeviceIdentity device_identity_here(Backend backend, int index)
{
    if (backend == Backend::Cpu) {
        for (const auto& d : collect_devices().devices)
            if (d.value("kind", "") == "cpu")
                return identity_from_sheet(d);
        return {"cpu", "unknown CPU", "", std::nullopt, ""};
    }
    if (auto gpu = visible_gpu(index))
        return *gpu;
    throw RunRefused(fmt::format("--device: there is no CUDA device {} here", index));
}

DeviceIdentity worker_device_identity(const WorkerDescription& d, int index)
{
    if (d.device.kind != "cuda")
        return device_identity_here(Backend::Cpu, index);
    // The GPU it says it ran on (its uuid), else the one at the run's index, else its own words.
    const auto& nvml = nvml::Library::instance();
    if (const auto device = d.device.uuid.empty() ? std::nullopt : nvml.device_by_uuid(d.device.uuid))
        return {"cuda", device->name(), device->uuid(), index, nvml.driver_version()};
    if (auto gpu = visible_gpu(index))
        return *gpu;
    return {"cuda", d.device.name.empty() ? std::string("unknown GPU") : d.device.name, d.device.uuid, index, ""};
}

RunSession::RunSession(const WorkloadRegistry& registry, RunSettings settings)
    : registry_(registry)
    , settings_(std::move(settings))
{
}

Runnability RunSession::check(const Study& study, const Experiment& e, Where where) const
{
    Runnability r = check_runnable(registry_, study, e, settings_.backend, settings_.device_named);
    if (!r.problem.empty())
        throw RunRefused(fmt::format("{}: experiment {}: {}", settings_.study, e.id, r.problem));
    if (!r.unavailable.empty() && where == Where::Here)
        throw std::runtime_error(fmt::format("{}: experiment {}: {}", settings_.study, e.id, r.unavailable));
    return r;
}

Experiment* RunSession::match_device(Study& study, Experiment& e, const DeviceIdentity& here) const
{
    if (may_continue_on(e, here)) {
        e.device = here;
        return &e;
    }
    if (!settings_.new_device)
        throw RunRefused(fmt::format("{}: experiment {} was measured on {} and this is {}; its samples cannot be "
                                     "continued on another device (use --new-device to start a new experiment here)",
            settings_.study, e.id, describe(e.device), describe(here)));
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

namespace {

// The plugin file's kernels as cuobjdump reads them, for their SASS hashes: once per process
// (cuobjdump -sass of the whole plugin takes seconds).
const KernelInventory& plugin_sass()
{
    static const KernelInventory sass = GpuBackend::instance().plugin_path().empty()
        ? KernelInventory {}
        : read_binary_kernels(GpuBackend::instance().plugin_path());
    return sass;
}

// An embedded CUDA A/B's kernels (run/driver_kernels.h) beside the study, as a commit arm's.
void record_driver_kernels(
    const std::string& path, const Experiment& e, const Workload& w, int device, std::vector<std::string>& notices)
{
    const GpuBackend& plugin = GpuBackend::instance();
    const auto* api = plugin.kernel_attributes_api();
    try {
        const EmbeddedKernels k = embedded_kernels(w, e, Backend::Cuda, device, api, plugin.kernel_attributes_reason(),
            api ? plugin_sass() : KernelInventory {});
        for (const auto& n : k.notes)
            notices.push_back(fmt::format("{}: {}", path, n));
        record_embedded_kernels(path, e.id, k);
    } catch (const std::exception& ex) {
        notices.push_back(fmt::format("{}: {}: the kernels' attributes were not recorded: {}", path, e.id, ex.what()));
    }
}

} // namespace

SessionPlan RunSession::plan(Study& study) const
{
    const std::string& path = settings_.study;
    // The loader refuses such a study too; a study built in memory comes here unchecked.
    if (const auto problem = duplicate_id_problem(study); !problem.empty())
        throw RunRefused(fmt::format("{}: {}", path, problem));
    SessionPlan plan;
    if (settings_.new_attempt) {
        // What Run does in the window on a finished study (study/new_attempt.h).
        if (study.experiments.empty())
            throw RunRefused(fmt::format("{}: --new-attempt: the study has no experiment to attempt again", path));
        if (has_runnable_experiment(study))
            throw RunRefused(fmt::format("{}: --new-attempt: the study is not finished (an experiment is pending or "
                                         "stopped); kwb run without --new-attempt resumes it",
                path));
        const std::string source = study.experiments[static_cast<size_t>(new_attempt_source(study))].id;
        std::string list;
        for (const auto& id : new_attempt_if_finished(study))
            list += fmt::format("{}{}", list.empty() ? "" : ", ", id);
        plan.notices.push_back(fmt::format("{}: new attempt of {}: {}", path, source, list));
    }
    if (settings_.continue_runs) {
        try {
            plan.notices.push_back(fmt::format("{}: {}", path, reopen_for_more_runs(study, settings_.continue_to)));
        } catch (const std::invalid_argument& ex) {
            throw RunRefused(fmt::format("{}: {}", path, ex.what()));
        }
    }
    if (settings_.device < 0)
        throw RunRefused("--device: a CUDA device index is 0 or more");
    select_cuda_device(settings_.device);
    // By index: --new-device appends experiments, which moves the others in memory.
    const size_t existing = study.experiments.size();
    for (size_t i = 0; i < existing; ++i) {
        if (!is_runnable(study.experiments[i]))
            continue;
        if (is_git_experiment(study.experiments[i])) {
            // Commit arms (docs/git-arms.md): the runnability rule first (one commit twice is an A/A,
            // refused unless asked for), then each commit built in its worktree or its build reused.
            (void)check(study, study.experiments[i]);
            PreparedGitArms prepared = prepare_git_arms(study.experiments[i]);
            plan.notices.insert(plan.notices.end(), prepared.notices.begin(), prepared.notices.end());
            if (!path.empty()) {
                KernelInventories all = load_kernel_inventories(path);
                all[study.experiments[i].id] = std::move(prepared.kernels);
                save_kernel_inventories(path, all);
            }
        }
        const Runnability r = check(study, study.experiments[i]);
        for (const auto& notice : r.notices)
            plan.notices.push_back(fmt::format("{}: experiment {}: {}", path, study.experiments[i].id, notice));
        const Experiment& e = study.experiments[i];
        const bool worker = r.workload->name() == worker::kWorkerWorkload;
        const DeviceIdentity here = worker
            ? worker_device_identity(ab_arms(e).baseline->worker->description, settings_.device)
            : device_identity_here(r.backend, settings_.device);
        const Experiment* target = match_device(study, study.experiments[i], here);
        if (r.backend == Backend::Cuda && !path.empty() && !is_git_experiment(*target))
            record_driver_kernels(path, *target, *r.workload, settings_.device, plan.notices);
        plan.experiments.push_back({static_cast<size_t>(target - study.experiments.data()), r.workload, r.backend});
    }
    return plan;
}

SessionResult RunSession::run(Study& study, const SessionPlan& plan, const SessionIo& io) const
{
    SessionResult result;
    const auto notice = [&](const std::string& line) {
        if (io.notice)
            io.notice(line);
    };
    const auto guarded = [&](const std::function<void()>& step) {
        if (io.guarded)
            io.guarded(step);
        else
            step();
    };
    // Samplers are chosen once per session: CUPTI's configuration costs 70-380 ms, and what cannot
    // run (no CUPTI, counters restricted to admins, no NVML) is said here, before any repetition.
    bool any_gpu = false;
    std::string gpu_uuid;
    for (const auto& p : plan.experiments)
        if (p.backend == Backend::Cuda && !any_gpu) {
            any_gpu = true;
            gpu_uuid = study.experiments[p.index].device.uuid;
        }
    SamplerChoice choice;
    choice.gpu = any_gpu;
    if (any_gpu) {
        const auto& backend = GpuBackend::instance();
        choice.api = backend.api();
        choice.api_reason = backend.unavailable_reason();
        choice.device = selected_cuda_device();
        choice.cupti = !io.no_cupti;
        choice.gpu_uuid = gpu_uuid;
    }
    SamplerSet samplers = choose_samplers(choice);
    for (const auto& why : samplers.limitations)
        notice(why);
    RunnerOptions options;
    options.cancel = io.cancel;
    options.samplers = samplers.pointers();
    options.observer = io.observer;
    options.before_repetition = io.before_repetition;
    options.checkpoint = [&] { guarded([&] { save_study(study, io.file); }); };
    options.run_started_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();

    for (const auto& planned : plan.experiments) {
        if (io.cancel && io.cancel->load()) {
            result.status = "stopped";
            break;
        }
        Experiment& e = study.experiments[planned.index];
        options.backend = planned.backend;
        study.hardware.device_in_use = e.device.model;
        GpuRunSupport gpu(e, planned.backend, io.notice);
        options.monitor = gpu.monitor();
        options.tracer = gpu.tracer();
        if (planned.backend == Backend::Cuda || !any_gpu)
            for (const auto& why : samplers.limitations)
                add_limitation(e, why);
        Runner runner(*planned.workload, options);
        const RunOutcome outcome = runner.run(study, e);
        for (auto* queued : {samplers.cupti, samplers.nvml})
            if (queued)
                for (auto& why : queued->limitations())
                    e.limitations.push_back(std::move(why));
        if (!e.missing_gates.empty()) {
            std::string gates;
            std::vector<std::string> named; // one word per gate: two arms' missing checks are one gate
            for (const auto& g : e.missing_gates)
                if (const std::string word = g.substr(0, g.find(':'));
                    std::find(named.begin(), named.end(), word) == named.end()) {
                    gates += fmt::format("{}{}", gates.empty() ? "" : "; ", word);
                    named.push_back(word);
                }
            notice(fmt::format("{}: gates not met, recorded in the study: {}", e.id, gates));
        }
        if (outcome == RunOutcome::Done && e.final_verdict && !settings_.study.empty()) {
            // The kernels' code (docs/verdict.md): unchanged SASS in both arms is said with the verdict.
            const KernelInventories kernels = load_kernel_inventories(settings_.study);
            if (const auto it = kernels.find(e.id); it != kernels.end()) {
                const AbArms ab = ab_arms(e);
                const auto b = it->second.find(ab.baseline->name), t = it->second.find(ab.treatment->name);
                if (b != it->second.end() && t != it->second.end()) {
                    const KernelDiff diff = diff_kernels(b->second, t->second);
                    const GpuPart* part = study_gpu_part(study.hardware.device_in_use, study.hardware.devices);
                    const bool same_code = apply_kernel_code_rule(*e.final_verdict, diff);
                    if (apply_resource_diff_rule(*e.final_verdict, diff, part) || same_code)
                        guarded([&] { save_study(study, io.file); });
                }
            }
        }
        if (io.experiment_done)
            io.experiment_done(e, outcome);
        if (outcome == RunOutcome::Done)
            record_aa(e, io);
        if (!e.group.empty() && io.judge_grids)
            // A cell judged: its grid's interaction is estimated again (null while a cell is pending).
            if (GridGroup* grid = find_grid(study, e.group)) {
                judge_grid(study, *grid);
                guarded([&] { save_study(study, io.file); });
                if (io.grid_judged)
                    io.grid_judged(study, *grid);
            }
        if (outcome == RunOutcome::Failed) {
            result.status = "failed";
            result.failed_experiment = e.id;
            break;
        }
        if (outcome == RunOutcome::Stopped) {
            result.status = "stopped";
            result.stopped_experiment = e.id;
            break;
        }
    }
    return result;
}

void RunSession::record_aa(const Experiment& e, const SessionIo& io) const
{
    const auto entry = aa_history_entry(settings_.study, e);
    if (!entry)
        return;
    std::optional<AaFalseAlarmRate> rate;
    std::string problem;
    try {
        const auto path = aa_history_path();
        append_aa_history(path, *entry);
        rate = aa_false_alarm_rate(read_aa_history(path), e.device);
    } catch (const std::exception& ex) {
        problem = ex.what(); // never fails the run: the study holds the A/A verdict either way
    }
    if (io.aa_recorded)
        io.aa_recorded(e, rate, problem);
}

} // namespace kwb
