// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/ab_editing.h"

#include "models/workload_catalog.h"
#include "study/arm_roles.h"
#include "study/gates.h"
#include "study/path_names.h"
#include "study/plan_limits.h"
#include "workloads/workload.h"

#include <cmath>
#include <stdexcept>

namespace kwb::gui {

std::string nextExperimentId(const Study& study, const std::string& stem)
{
    return unique_experiment_id(study, stem, 1);
}

void setWorkload(Experiment& e, const std::string& workload)
{
    const Workload* w = findWorkload(workload);
    if (!w)
        throw std::invalid_argument("unknown workload \"" + workload + "\"");
    e.workload = w->name();
    if (e.backend == "auto" || !has_backend(*w, e.backend == "cuda" ? Backend::Cuda : Backend::Cpu))
        e.backend = "cpu";
    const nlohmann::json params = resolve_params(*w, nlohmann::json::object(), Backend::Cpu);
    const bool had_aa = aa_arm(e) != nullptr;
    e.arms = {Arm {"baseline", params, std::nullopt}, Arm {"treatment", params, std::nullopt}};
    if (had_aa) // the A/A arm stays chosen: the new baseline again
        add_aa_arm(e);
    const auto metrics = w->metrics();
    bool known = false;
    for (const auto& m : metrics)
        known = known || m.name == e.metric;
    if (!known && !metrics.empty())
        e.metric = metrics.front().name;
    e.guards.clear();
}

Experiment makeAbExperiment(const Study& study, const std::string& workload)
{
    Experiment e;
    e.id = nextExperimentId(study);
    e.kind = "ab";
    e.backend = "cpu";
    e.metric = study.target.metric;
    setWorkload(e, workload);
    for (const auto& name : standard_controls())
        e.controls.checklist[name] = false;
    e.profile = "generic";
    e.plan.runs_per_arm = kDefaultRunsPerArm; // whole ABBA blocks (study/plan_limits.h)
    return e;
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
