// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/workload_description.h"

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

namespace {

bool on_backend(const ParamSpec& spec, Backend backend)
{
    return spec.only_on.empty() || std::find(spec.only_on.begin(), spec.only_on.end(), backend) != spec.only_on.end();
}

const ParamSpec* find_param(const WorkloadDescription& w, const std::string& name)
{
    const auto it = std::find_if(w.params.begin(), w.params.end(), [&](const ParamSpec& p) { return p.name == name; });
    return it == w.params.end() ? nullptr : &*it;
}

template<typename Range, typename Name> std::string join_names(const Range& items, Name name)
{
    std::vector<std::string> names;
    for (const auto& item : items)
        names.push_back(name(item));
    return fmt::format("{}", fmt::join(names, ", "));
}

} // namespace

bool has_backend(const WorkloadDescription& workload, Backend backend)
{
    return std::find(workload.backends.begin(), workload.backends.end(), backend) != workload.backends.end();
}

bool params_fit_backend(const WorkloadDescription& workload, const nlohmann::json& given, Backend backend)
{
    if (!has_backend(workload, backend) || !given.is_object())
        return false;
    for (const auto& [name, value] : given.items())
        if (const ParamSpec* spec = find_param(workload, name); spec && !on_backend(*spec, backend))
            return false;
    return true;
}

nlohmann::json resolve_params(
    const WorkloadDescription& workload, const nlohmann::json& given, std::optional<Backend> backend)
{
    const std::string& wname = workload.name;
    if (!given.is_object())
        throw WorkloadError(fmt::format("{}: parameters must be an object of name: value", wname));
    nlohmann::json resolved = nlohmann::json::object();
    for (const auto& spec : workload.params) {
        if (backend && !on_backend(spec, *backend))
            continue;
        const bool cuda_value = backend == Backend::Cuda && !spec.cuda_default.is_null();
        resolved[spec.name] = cuda_value ? spec.cuda_default : spec.default_value;
    }
    for (const auto& [name, value] : given.items()) {
        const ParamSpec* spec = find_param(workload, name);
        if (!spec)
            throw WorkloadError(
                fmt::format("{}: unknown parameter '{}' (parameters: {})", wname, name, param_names(workload)));
        if (backend && !on_backend(*spec, *backend))
            throw WorkloadError(fmt::format("{}: parameter '{}' exists on the {} backend only, not on {}", wname, name,
                to_string(spec->only_on.front()), to_string(*backend)));
        if (spec->default_value.is_number() != value.is_number()
            || spec->default_value.is_string() != value.is_string())
            throw WorkloadError(fmt::format("{}: parameter '{}' must be a {}, got {}", wname, name,
                spec->default_value.is_number() ? "number" : "string", value.dump()));
        if (spec->default_value.is_number_integer() && value.is_number_float()) {
            const auto whole = whole_number(value);
            if (!whole)
                throw WorkloadError(
                    fmt::format("{}: parameter '{}' must be an integer, got {}", wname, name, value.dump()));
            resolved[name] = *whole;
            continue;
        }
        resolved[name] = value;
    }
    return resolved;
}

std::vector<ParamSpec> params_on(const WorkloadDescription& workload, std::string_view backend_setting)
{
    std::vector<ParamSpec> out;
    for (const auto& p : workload.params) {
        const bool everywhere = p.only_on.empty() || backend_setting == "auto";
        if (everywhere || std::any_of(p.only_on.begin(), p.only_on.end(), [&](Backend b) {
                return to_string(b) == backend_setting;
            }))
            out.push_back(p);
    }
    return out;
}

nlohmann::json defaults_on(const WorkloadDescription& workload, std::string_view backend_setting)
{
    nlohmann::json defaults = nlohmann::json::object();
    const bool cuda = backend_setting == "cuda";
    for (const auto& p : params_on(workload, backend_setting))
        defaults[p.name] = cuda && !p.cuda_default.is_null() ? p.cuda_default : p.default_value;
    return defaults;
}

nlohmann::json describe_workload(const WorkloadDescription& workload)
{
    nlohmann::json backends = nlohmann::json::array();
    for (auto b : workload.backends)
        backends.push_back(to_string(b));
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : workload.params) {
        nlohmann::json param
            = {{"name", p.name}, {"default", p.default_value}, {"values", p.values}, {"description", p.description}};
        nlohmann::json on = nlohmann::json::array();
        for (auto b : p.only_on.empty() ? workload.backends : p.only_on)
            on.push_back(to_string(b));
        param["backends"] = on;
        if (!p.cuda_default.is_null())
            param["cuda_default"] = p.cuda_default;
        params.push_back(std::move(param));
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : workload.metrics)
        metrics.push_back({{"name", m.name}, {"unit", m.unit}, {"direction", to_string(m.direction)},
            {"description", m.description}});
    return {{"name", workload.name}, {"description", workload.text}, {"backends", backends},
        {"aliases", workload.aliases}, {"params", params}, {"metrics", metrics}, {"synthetic", workload.synthetic}};
}

std::string param_names(const WorkloadDescription& workload)
{
    return join_names(workload.params, [](const ParamSpec& p) { return p.name; });
}

std::string metric_names(const WorkloadDescription& workload)
{
    return join_names(workload.metrics, [](const MetricSpec& m) { return m.name; });
}

} // namespace kwb
