// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/workload.h"

#include "study/study.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kwb {

std::string_view to_string(Backend b)
{
    return b == Backend::Cuda ? "cuda" : "cpu";
}

std::optional<long long> whole_number(const nlohmann::json& value)
{
    if (value.is_number_integer())
        return value.get<long long>();
    if (!value.is_number_float())
        return std::nullopt;
    const double d = value.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) >= 9e15)
        return std::nullopt;
    return static_cast<long long>(d);
}

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

namespace {

bool on_backend(const ParamSpec& spec, Backend backend)
{
    return spec.only_on.empty() || std::find(spec.only_on.begin(), spec.only_on.end(), backend) != spec.only_on.end();
}

} // namespace

bool has_backend(const Workload& workload, Backend backend)
{
    const auto list = workload.backends();
    return std::find(list.begin(), list.end(), backend) != list.end();
}

bool params_fit_backend(const Workload& workload, const nlohmann::json& given, Backend backend)
{
    if (!has_backend(workload, backend) || !given.is_object())
        return false;
    const auto specs = workload.params();
    for (const auto& [name, value] : given.items()) {
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& p) { return p.name == name; });
        if (spec != specs.end() && !on_backend(*spec, backend))
            return false;
    }
    return true;
}

nlohmann::json resolve_params(const Workload& workload, const nlohmann::json& given, std::optional<Backend> backend)
{
    if (!given.is_object())
        throw WorkloadError(fmt::format("{}: parameters must be an object of name: value", workload.name()));
    const auto specs = workload.params();
    nlohmann::json resolved = nlohmann::json::object();
    for (const auto& spec : specs) {
        if (backend && !on_backend(spec, *backend))
            continue;
        const bool cuda_value = backend == Backend::Cuda && !spec.cuda_default.is_null();
        resolved[spec.name] = cuda_value ? spec.cuda_default : spec.default_value;
    }
    for (const auto& [name, value] : given.items()) {
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& p) { return p.name == name; });
        if (spec == specs.end())
            throw WorkloadError(fmt::format(
                "{}: unknown parameter '{}' (parameters: {})", workload.name(), name, param_names(workload)));
        if (backend && !on_backend(*spec, *backend))
            throw WorkloadError(fmt::format("{}: parameter '{}' exists on the {} backend only, not on {}",
                workload.name(), name, to_string(spec->only_on.front()), to_string(*backend)));
        if (spec->default_value.is_number() != value.is_number()
            || spec->default_value.is_string() != value.is_string())
            throw WorkloadError(fmt::format("{}: parameter '{}' must be a {}, got {}", workload.name(), name,
                spec->default_value.is_number() ? "number" : "string", value.dump()));
        if (spec->default_value.is_number_integer() && value.is_number_float()) {
            const auto whole = whole_number(value);
            if (!whole)
                throw WorkloadError(
                    fmt::format("{}: parameter '{}' must be an integer, got {}", workload.name(), name, value.dump()));
            resolved[name] = *whole;
            continue;
        }
        resolved[name] = value;
    }
    return resolved;
}

nlohmann::json describe_workload(const Workload& workload)
{
    nlohmann::json backends = nlohmann::json::array();
    for (auto b : workload.backends())
        backends.push_back(to_string(b));
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : workload.params()) {
        nlohmann::json param
            = {{"name", p.name}, {"default", p.default_value}, {"values", p.values}, {"description", p.description}};
        nlohmann::json on = nlohmann::json::array();
        for (auto b : p.only_on.empty() ? workload.backends() : p.only_on)
            on.push_back(to_string(b));
        param["backends"] = on;
        if (!p.cuda_default.is_null())
            param["cuda_default"] = p.cuda_default;
        params.push_back(std::move(param));
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : workload.metrics())
        metrics.push_back({{"name", m.name}, {"unit", m.unit}, {"direction", to_string(m.direction)},
            {"description", m.description}});
    return {{"name", workload.name()}, {"description", workload.description()}, {"backends", backends},
        {"aliases", workload.aliases()}, {"params", params}, {"metrics", metrics}, {"synthetic", workload.synthetic()}};
}

namespace {

template<typename Range, typename Name> std::string join_names(const Range& items, Name name)
{
    std::vector<std::string> names;
    for (const auto& item : items)
        names.push_back(name(item));
    return fmt::format("{}", fmt::join(names, ", "));
}

} // namespace

std::string param_names(const Workload& workload)
{
    return join_names(workload.params(), [](const ParamSpec& p) { return p.name; });
}

std::string metric_names(const Workload& workload)
{
    return join_names(workload.metrics(), [](const MetricSpec& m) { return m.name; });
}

std::string workload_names(const WorkloadRegistry& registry)
{
    return join_names(registry.all(), [](const Workload* w) { return w->name(); });
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
