// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"
#include "commands.h"
#include "workloads/cuda_workload.h"

#include <fmt/format.h>

namespace kwb::cli {
namespace {

std::string value_text(const nlohmann::json& v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

// The workload's description plus, for a backend this machine cannot run, why not: studies for
// a GPU server can be written on a laptop, so the cuda backend is listed everywhere.
nlohmann::json describe_here(const Workload& w)
{
    auto d = describe_workload(w);
    nlohmann::json unavailable = nlohmann::json::object();
    if (has_backend(w, Backend::Cuda))
        if (const auto why = cuda_unavailable_reason(w.name()); !why.empty())
            unavailable["cuda"] = why;
    d["unavailable"] = unavailable;
    return d;
}

int run(bool json)
{
    const auto workloads = builtin_workloads().all();
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto* w : workloads)
            list.push_back(describe_here(*w));
        fmt::print("{}\n", nlohmann::json {{"workloads", list}}.dump(2));
        return kOk;
    }
    for (const auto* w : workloads) {
        const auto d = describe_here(*w);
        std::string backends;
        for (const auto& b : d.at("backends"))
            backends += fmt::format("{}{}", backends.empty() ? "" : ", ", b.get<std::string>());
        std::string aliases;
        for (const auto& a : d.at("aliases"))
            aliases += fmt::format("{}{}", aliases.empty() ? "  (alias " : ", ", a.get<std::string>());
        fmt::print("{}  [{}]{}\n  {}\n", w->name(), backends, aliases.empty() ? "" : aliases + ")", w->description());
        for (const auto& [backend, why] : d.at("unavailable").items())
            fmt::print("  {} unavailable here: {}\n", backend, why.get<std::string>());
        for (const auto& p : w->params()) {
            std::string values;
            for (const auto& v : p.values)
                values += fmt::format("{}{}", values.empty() ? "" : ", ", value_text(v));
            std::string only;
            if (!p.only_on.empty())
                only = fmt::format(" [{} only]", to_string(p.only_on.front()));
            const std::string def = p.cuda_default.is_null()
                ? value_text(p.default_value)
                : fmt::format("{} (cuda {})", value_text(p.default_value), value_text(p.cuda_default));
            fmt::print("  param  {:<14} default {:<10} values {}  {}{}\n", p.name, def, values, p.description, only);
        }
        for (const auto& m : w->metrics())
            fmt::print(
                "  metric {:<12} {:<6} {} is better  {}\n", m.name, m.unit, to_string(m.direction), m.description);
    }
    return kOk;
}

} // namespace

void add_workloads_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("workloads", "Every workload with its backends, parameters and metrics");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Print {\"workloads\": [...]} as JSON");
    cmd->callback([&action, json] { action = [json] { return run(*json); }; });
}

} // namespace kwb::cli
