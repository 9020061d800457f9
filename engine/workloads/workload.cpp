// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/workload.h"

#include "study/study.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {

std::optional<bool> arms_share_buffers(const std::vector<VerifyResult>& checks)
{
    if (checks.empty())
        return std::nullopt;
    for (const auto& c : checks)
        if (!c.buffer_set)
            return std::nullopt;
    for (const auto& c : checks)
        if (*c.buffer_set != *checks.front().buffer_set)
            return false;
    return true;
}

WorkloadDescription Workload::describe() const
{
    return {name(), description(), backends(), params(), metrics(), aliases(), synthetic()};
}

bool has_backend(const Workload& workload, Backend backend)
{
    return has_backend(workload.describe(), backend);
}

bool params_fit_backend(const Workload& workload, const nlohmann::json& given, Backend backend)
{
    return params_fit_backend(workload.describe(), given, backend);
}

nlohmann::json resolve_params(const Workload& workload, const nlohmann::json& given, std::optional<Backend> backend)
{
    return resolve_params(workload.describe(), given, backend);
}

nlohmann::json describe_workload(const Workload& workload)
{
    return describe_workload(workload.describe());
}

std::string param_names(const Workload& workload)
{
    return param_names(workload.describe());
}

std::string metric_names(const Workload& workload)
{
    return metric_names(workload.describe());
}

std::string workload_names(const WorkloadRegistry& registry)
{
    std::string out;
    for (const Workload* w : registry.all())
        out += (out.empty() ? "" : ", ") + w->name();
    return out;
}

void WorkloadRegistry::add(std::unique_ptr<Workload> workload)
{
    if (find(workload->name()))
        throw std::logic_error(fmt::format("workload '{}' registered twice", workload->name()));
    for (const auto& alias : workload->aliases())
        if (find(alias))
            throw std::logic_error(fmt::format("workload alias '{}' registered twice", alias));
    workloads_.push_back(std::move(workload));
}

const Workload* WorkloadRegistry::find(std::string_view name) const
{
    for (const auto& w : workloads_)
        if (w->name() == name)
            return w.get();
    for (const auto& w : workloads_)
        for (const auto& alias : w->aliases())
            if (alias == name)
                return w.get();
    return nullptr;
}

std::vector<const Workload*> WorkloadRegistry::all() const
{
    std::vector<const Workload*> out;
    for (const auto& w : workloads_)
        out.push_back(w.get());
    return out;
}

std::unique_ptr<PreparedWorkload> Workload::prepare_arm(const Arm& arm, Backend backend) const
{
    return prepare(resolve_params(*this, arm.params, backend), backend);
}

} // namespace kwb
