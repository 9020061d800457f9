// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/ab_editing.h"

#include "models/workload_catalog.h"
#include "study/arm_roles.h"
#include "study/gates.h"
#include "study/path_names.h"
#include "study/plan_limits.h"
#include "workloads/new_ab.h"

#include <cmath>
#include <stdexcept>

namespace kwb::gui {

std::string nextExperimentId(const Study& study, const std::string& stem)
{
    return unique_experiment_id(study, stem, 1);
}

void setWorkload(Experiment& e, const std::string& workload)
{
    const WorkloadDescription* w = findWorkload(workload);
    if (!w)
        throw std::invalid_argument("unknown workload \"" + workload + "\"");
    if (e.backend == "auto" || !has_backend(*w, e.backend == "cuda" ? Backend::Cuda : Backend::Cpu))
        e.backend = "cpu";
    // The arms start over as the engine makes a new A/B (workloads/new_ab.h); the A/A arm stays
    // chosen (the new baseline again).
    NewAbRequest request;
    request.workload = w;
    request.backend_setting = e.backend;
    request.metric = e.metric;
    request.aa_arm = aa_arm(e) != nullptr;
    const Experiment fresh = new_ab_experiment(request);
    e.workload = fresh.workload;
    e.arms = fresh.arms;
    e.metric = fresh.metric;
    e.guards.clear();
}

Experiment makeAbExperiment(const Study& study, const std::string& workload)
{
    const WorkloadDescription* w = findWorkload(workload);
    if (!w)
        throw std::invalid_argument("unknown workload \"" + workload + "\"");
    NewAbRequest request; // the one way a new A/B is made, kwb new's too (workloads/new_ab.h)
    request.workload = w;
    request.id = nextExperimentId(study);
    request.metric = study.target.metric;
    request.plan.runs_per_arm = kDefaultRunsPerArm; // whole ABBA blocks (study/plan_limits.h)
    return new_ab_experiment(request);
}

void setShared(Experiment& e, const std::string& name, const nlohmann::json& value)
{
    for (auto& arm : e.arms)
        arm.params[name] = value;
}

void setArmValue(Experiment& e, int arm, const std::string& name, const nlohmann::json& value)
{
    e.arms.at(static_cast<size_t>(arm)).params[name] = value;
    if (arm == 0)
        sync_aa_arm(e);
}

std::optional<std::string> setTreatmentValue(
    Experiment& e, const std::string& varied, const std::string& name, const nlohmann::json& value)
{
    if (e.arms.size() < 2)
        return std::string("the experiment has no treatment arm");
    if (name != varied && e.arms[0].params.value(name, nlohmann::json()) != value)
        return "refused: " + name + " would be a second changed variable (the A/B varies "
            + (varied.empty() ? std::string("nothing yet") : varied)
            + "); choose it as the varied parameter, or set it on both arms";
    e.arms[1].params[name] = value;
    return std::nullopt;
}

void setVaried(Experiment& e, const std::string& oldVaried, const std::string& newVaried)
{
    if (e.arms.size() < 2 || oldVaried == newVaried || oldVaried.empty())
        return;
    if (e.arms[0].params.contains(oldVaried))
        e.arms[1].params[oldVaried] = e.arms[0].params[oldVaried];
    else
        e.arms[1].params.erase(oldVaried);
}

nlohmann::json parseCellValue(const std::string& text)
{
    try {
        size_t used = 0;
        const long long i = std::stoll(text, &used);
        if (used == text.size())
            return i;
    } catch (const std::exception&) {
    }
    try {
        size_t used = 0;
        const double d = std::stod(text, &used);
        if (used == text.size() && std::isfinite(d))
            return d;
    } catch (const std::exception&) {
    }
    return text;
}

void applyMeasuredControls(Experiment& e, const DeviceIdentity* current)
{
    for (const auto& m : measure_controls(e, experimentDefaults(e), current))
        if (m.measured)
            e.controls.checklist[m.name] = *m.measured;
}

} // namespace kwb::gui
