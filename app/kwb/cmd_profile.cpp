// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb profile STUDY`: phase 3. Runs the profiling pass (engine/run/profiling_pass.h) on the
// baseline arm of one experiment, outside any timed A/B, classifies the binding constraint
// (engine/hardware/binding_classifier.h) and writes the study's `binding` section atomically
// under the study lock. Prints the call with its evidence, or the section as JSON.
#include "builtin_workloads.h"
#include "commands.h"
#include "hardware/gpu_backend.h"
#include "profile_options.h"
#include "run/profiling_pass.h"
#include "run/run_session.h"
#include "run/speed_of_light_input.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "workloads/command/command_workload.h"
#include "workloads/cuda_workload.h"

#include <fmt/format.h>
#include <memory>
#include <optional>

namespace kwb::cli {

LockedStudy lock_and_load(const std::string& path)
{
    LockHolder holder;
    LockedStudy out;
    try {
        out.lock = StudyLock::try_acquire(path, &holder);
    } catch (const std::runtime_error& e) {
        throw BadInput(fmt::format("{} (kwb profile locks the study while it profiles)", e.what()));
    }
    if (!out.lock)
        throw BadInput(fmt::format("{}: locked by {}: a run or profile is in progress", path, holder.describe()));
    try {
        out.study = load_study(path);
    } catch (const std::exception& e) {
        throw BadInput(e.what());
    }
    return out;
}

const Experiment& pick_experiment(const Study& study, const ProfileOptions& o)
{
    if (study.experiments.empty())
        throw BadInput(fmt::format("{}: no experiment to profile (kwb profile runs an experiment's baseline arm; add "
                                   "one with kwb new)",
            o.study));
    if (o.experiment.empty())
        return study.experiments.front();
    for (const auto& e : study.experiments)
        if (e.id == o.experiment)
            return e;
    std::string ids;
    for (const auto& e : study.experiments)
        ids += (ids.empty() ? "" : ", ") + e.id;
    throw BadInput(fmt::format("{}: --experiment: no experiment '{}' (the study has {})", o.study, o.experiment, ids));
}

Backend pick_backend(const Workload& w, const Experiment& e, const ProfileOptions& o)
{
    const std::string wanted = o.backend.empty() ? e.backend : o.backend;
    const bool cuda_here = has_backend(w, Backend::Cuda) && cuda_unavailable_reason(w.name()).empty();
    if (wanted == "cuda") {
        if (!has_backend(w, Backend::Cuda))
            throw BadInput(fmt::format("{}: experiment {}: {} has no cuda backend", o.study, e.id, w.name()));
        if (const auto why = cuda_unavailable_reason(w.name()); !why.empty())
            throw std::runtime_error(
                fmt::format("{}: experiment {}: the cuda backend is not available here: {}", o.study, e.id, why));
        return Backend::Cuda;
    }
    if (wanted == "auto" && cuda_here && params_fit_backend(w, e.arms.front().params, Backend::Cuda))
        return Backend::Cuda;
    if (!has_backend(w, Backend::Cpu))
        throw BadInput(fmt::format("{}: experiment {}: {} has no cpu backend", o.study, e.id, w.name()));
    return Backend::Cpu;
}

namespace {

std::string number(const nlohmann::json& metrics, const char* name, const char* unit)
{
    if (!metrics.contains(name) || !metrics[name].is_number())
        return "-";
    return fmt::format("{:.1f}{}", metrics[name].get<double>(), unit);
}

void print_text(const BindingEvidence& b)
{
    fmt::print("binding: {}\n", b.constraint.empty() ? "not determined (see evidence)" : b.constraint);
    fmt::print("  profiled: experiment {}, arm {}, source {}\n", b.experiment, b.arm, b.source);
    if (!b.axis.empty())
        fmt::print("  axis: {}\n", b.axis);
    for (const auto& line : b.evidence)
        fmt::print("  evidence: {}\n", line);
    for (const auto& k : b.kernels) {
        const auto& m = k.at("metrics");
        fmt::print("  kernel {}: {} launches, {:.4f} ms mean, {:.0f}% of kernel time; DRAM {}, occupancy {}, "
                   "tensor {}, FMA {}, SM {} ({} samples)\n",
            k.value("name", "?"), k.value("launches", 0), k.value("mean_ms", 0.0), k.value("share_pct", 0.0),
            number(m, "dram_pct", " %"), number(m, "occupancy", " %"), number(m, "tensor_pct", " %"),
            number(m, "fma_pct", " %"), number(m, "sm_pct", " %"), k.value("samples", 0));
    }
    const auto& m = b.metrics;
    if (m.contains("launches_per_s") || m.contains("kernel_share_pct"))
        fmt::print("  step: {} launches/s, kernels cover {} of the wall clock; {} ms a launch profiled, {} timed\n",
            number(m, "launches_per_s", ""), number(m, "kernel_share_pct", " %"),
            m.contains("profiled_ms_per_launch") ? fmt::format("{:.4f}", m["profiled_ms_per_launch"].get<double>())
                                                 : "-",
            m.contains("timed_ms_per_launch") ? fmt::format("{:.4f}", m["timed_ms_per_launch"].get<double>()) : "-");
    for (const auto& w : b.warnings)
        fmt::print("  warning: {}\n", w);
    for (const auto& l : b.limitations)
        fmt::print("  limitation: {}\n", l);
}

int profile(const ProfileOptions& o)
{
    if (o.arms == "all")
        return profile_arms(o);
    if (o.device < 0)
        throw BadInput("--device: a CUDA device index is 0 or more");
    if (!(o.duration_ms > 0 && o.duration_ms <= 60000))
        throw BadInput("--duration-ms: between 1 and 60000");
    auto locked = lock_and_load(o.study);
    Study& study = locked.study;
    const Experiment& e = pick_experiment(study, o);
    if (e.arms.empty())
        throw BadInput(fmt::format("{}: experiment {}: no arms", o.study, e.id));
    const Workload* w = builtin_workloads().find(e.workload);
    if (!w)
        throw BadInput(
            fmt::format("{}: experiment {}: unknown workload '{}' (see kwb workloads)", o.study, e.id, e.workload));
    const std::string wanted = o.backend.empty() ? e.backend : o.backend;
    if (wanted != "auto" && wanted != "cpu" && wanted != "cuda")
        throw BadInput(
            fmt::format("{}: experiment {}: unknown backend '{}' (expected auto, cpu or cuda)", o.study, e.id, wanted));
    select_cuda_device(o.device);
    const Backend backend = pick_backend(*w, e, o);
    const Arm& arm = e.arms.front();

    ProfilePassOptions options;
    options.device = o.device;
    options.cupti = !o.no_cupti;
    options.profile_ms = o.duration_ms;
    // The roofs of the device profiled on: a study not run yet records none of its own.
    Experiment on_this_device = e;
    if (backend == Backend::Cuda && e.device.kind != "cuda")
        on_this_device.device = device_identity_here(Backend::Cuda, o.device);
    if (const auto roofs = speed_of_light_roofs(study, on_this_device); roofs.dram_gbs) {
        options.bandwidth_ceiling_gbs = roofs.dram_gbs->value;
        options.bandwidth_ceiling_name = roofs.dram_gbs->what;
    }
    if (backend == Backend::Cuda) {
        const auto& plugin = GpuBackend::instance();
        options.api = plugin.api();
        options.api_reason = plugin.unavailable_reason();
    }
    ProfilePassResult result;
    try {
        result = profile_arm(*w, arm, backend, options);
    } catch (const WorkloadError& ex) {
        throw std::runtime_error(fmt::format("{}: experiment {}: arm {}: {}", o.study, e.id, arm.name, ex.what()));
    }
    if (w->name() == command::kCommandWorkload)
        result.limitations.push_back("external command: its kernels run in another process, which in-process CUPTI "
                                     "cannot see; profile the command itself with ncu or nsys");
    for (const auto& l : result.limitations)
        fmt::print(stderr, "kwb: {}: {}\n", e.id, l);
    const std::string experiment_id = e.id, arm_name = arm.name;
    store_binding(study.binding, result, experiment_id, arm_name, options.thresholds, utc_now_iso8601());
    save_study(study, o.study);
    if (o.json) {
        const auto section = nlohmann::json {{"constraint", study.binding.constraint}, {"axis", study.binding.axis},
            {"evidence", study.binding.evidence}, {"warnings", study.binding.warnings},
            {"limitations", study.binding.limitations}, {"thresholds", study.binding.thresholds},
            {"kernels", study.binding.kernels}, {"metrics", study.binding.metrics},
            {"experiment", study.binding.experiment}, {"arm", study.binding.arm}, {"source", study.binding.source},
            {"measured_at", study.binding.measured_at}};
        fmt::print("{}\n", nlohmann::json {{"binding", section}}.dump(2));
    } else
        print_text(study.binding);
    return kOk;
}

} // namespace

void add_profile_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("profile",
        "Profile an experiment's baseline arm (outside any timed A/B), classify the binding constraint and write it "
        "into the study's binding section");
    auto o = std::make_shared<ProfileOptions>();
    cmd->add_option("STUDY", o->study, "The study file (its binding section is written back)")->required();
    cmd->add_option(
        "--experiment", o->experiment, "The experiment whose baseline arm is profiled (default: the first)");
    cmd->add_option("--backend", o->backend, "auto, cpu or cuda (default: the experiment's own setting)")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_option("--device", o->device, "The CUDA device to profile on (default 0)");
    cmd->add_option("--duration-ms", o->duration_ms, "Wall time of the profiled repetitions, at least (default 300)");
    cmd->add_flag("--no-cupti", o->no_cupti, "No CUPTI: event timing only (as on a machine without counter access)");
    cmd->add_option("--arms", o->arms,
           "all: the CUPTI range profiler over every arm of the experiment (DRAM bytes, L2 sectors and hit rate, "
           "occupancy, registers, shared memory) and the diff table between arms; the study is not changed")
        ->check(CLI::IsMember({"all"}));
    cmd->add_flag("--json", o->json, "Print the binding section as JSON");
    cmd->callback([&action, o] { action = [o] { return profile(*o); }; });
}

} // namespace kwb::cli
