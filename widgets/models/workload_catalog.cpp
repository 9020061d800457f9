// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/workload_catalog.h"

#include "workloads/descriptions/builtin_descriptions.h"

namespace kwb::gui {

QStringList workloadNames()
{
    QStringList names;
    for (const WorkloadDescription* w : builtin_descriptions())
        names << QString::fromStdString(w->name);
    return names;
}

const WorkloadDescription* findWorkload(const std::string& name)
{
    return find_builtin_description(name);
}

std::vector<ParamSpec> workloadParams(const WorkloadDescription& workload, const std::string& backend)
{
    return params_on(workload, backend);
}

nlohmann::json experimentDefaults(const Experiment& experiment)
{
    const WorkloadDescription* w = findWorkload(experiment.workload);
    return w ? defaults_on(*w, experiment.backend) : nlohmann::json::object();
}

} // namespace kwb::gui
