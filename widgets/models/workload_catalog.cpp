// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/workload_catalog.h"

#include "builtin_workloads.h"

#include <algorithm>

namespace kwb::gui {

QStringList workloadNames()
{
    QStringList names;
    for (const Workload* w : builtin_workloads().all())
        names << QString::fromStdString(w->name());
    return names;
}

const Workload* findWorkload(const std::string& name)
{
    return builtin_workloads().find(name);
}

std::vector<ParamSpec> workloadParams(const Workload& workload, const std::string& backend)
{
    std::vector<ParamSpec> out;
    for (const auto& p : workload.params()) {
        const bool everywhere = p.only_on.empty() || backend == "auto";
        if (everywhere || std::any_of(p.only_on.begin(), p.only_on.end(), [&](Backend b) {
                return std::string(to_string(b)) == backend;
            }))
            out.push_back(p);
    }
    return out;
}

nlohmann::json experimentDefaults(const Experiment& experiment)
{
    nlohmann::json defaults = nlohmann::json::object();
    const Workload* w = findWorkload(experiment.workload);
    if (!w)
        return defaults;
    const bool cuda = experiment.backend == "cuda";
    for (const auto& p : workloadParams(*w, experiment.backend))
        defaults[p.name] = cuda && !p.cuda_default.is_null() ? p.cuda_default : p.default_value;
    return defaults;
}

} // namespace kwb::gui
