// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/run_session.h"

#include "hardware/device_sheet.h"
#include "hardware/gpu_backend.h"
#include "study/device_identity.h"
#include "study/new_attempt.h"
#include "workloads/cuda_workload.h"

#include <fmt/format.h>
#include <set>

namespace kwb {

DeviceIdentity device_identity_here(Backend backend, int index)
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
    throw RunRefused(fmt::format("--device: there is no CUDA device {} here", index));
}

RunSession::RunSession(const WorkloadRegistry& registry, RunSettings settings)
    : registry_(registry)
    , settings_(std::move(settings))
{
}

Runnability RunSession::check(const Study& study, const Experiment& e, Where where) const
{
    Runnability r = check_runnable(registry_, study, e, settings_.backend);
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
    next.id = fmt::format("{}-{}", e.id, study.experiments.size() + 1);
    next.device = here;
    next.controls.notes += fmt::format("{}continues experiment {} (measured on {}) on {}: a new experiment, since "
                                       "samples of two device models are never judged together.",
        next.controls.notes.empty() ? "" : " ", e.id, describe(e.device), describe(here));
    if (e.status == ExperimentStatus::Stopped || e.status == ExperimentStatus::Running)
        e.status = ExperimentStatus::Done; // it is not resumed any more: judged as it stands
    study.experiments.push_back(std::move(next));
    return &study.experiments.back();
}

SessionPlan RunSession::plan(Study& study) const
{
    const std::string& path = settings_.study;
    std::set<std::string> ids;
    for (const auto& e : study.experiments)
        if (!ids.insert(e.id).second)
            throw RunRefused(
                fmt::format("{}: two experiments have the id '{}'; ids must be unique in a study", path, e.id));
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
    if (settings_.device < 0)
        throw RunRefused("--device: a CUDA device index is 0 or more");
    select_cuda_device(settings_.device);
    // By index: --new-device appends experiments, which moves the others in memory.
    const size_t existing = study.experiments.size();
    for (size_t i = 0; i < existing; ++i) {
        if (!is_runnable(study.experiments[i]))
            continue;
        const Runnability r = check(study, study.experiments[i]);
        for (const auto& notice : r.notices)
            plan.notices.push_back(fmt::format("{}: experiment {}: {}", path, study.experiments[i].id, notice));
        const DeviceIdentity here = device_identity_here(r.backend, settings_.device);
        const Experiment* target = match_device(study, study.experiments[i], here);
        plan.experiments.push_back({static_cast<size_t>(target - study.experiments.data()), r.workload, r.backend});
    }
    return plan;
}

} // namespace kwb
