// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/new_ab.h"

#include "study/arm_roles.h"
#include "study/gates.h"

#include <algorithm>
#include <stdexcept>

namespace kwb {

Experiment new_ab_experiment(const NewAbRequest& r)
{
    if (!r.workload)
        throw std::invalid_argument("a new A/B needs a workload");
    const WorkloadDescription& w = *r.workload;
    Experiment e;
    e.id = r.id;
    e.kind = "ab";
    e.workload = w.name;
    e.backend = r.backend_setting;
    const auto& metrics = w.metrics;
    const bool known
        = std::any_of(metrics.begin(), metrics.end(), [&](const MetricSpec& m) { return m.name == r.metric; });
    e.metric = known || metrics.empty() ? r.metric : metrics.front().name;
    e.guards = r.guards;
    const auto arm = [&](const char* name, const nlohmann::json& given) {
        try {
            return Arm {name, resolve_params(w, given, r.backend), std::nullopt};
        } catch (const WorkloadError& ex) {
            throw WorkloadError(std::string(name) + ": " + ex.what());
        }
    };
    e.arms = {arm("baseline", r.baseline), arm("treatment", r.treatment)};
    for (const auto& name : standard_controls())
        e.controls.checklist[name] = false;
    e.profile = r.profile;
    e.plan = r.plan;
    if (r.aa_arm)
        add_aa_arm(e); // the baseline again, interleaved, to the same n
    return e;
}

} // namespace kwb
