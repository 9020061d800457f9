// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands.h"

#include "builtin_workloads.h"

#include <fmt/format.h>

namespace kwb::cli {
namespace {

std::string value_text(const nlohmann::json& v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

int run(bool json)
{
    const auto workloads = builtin_workloads().all();
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto* w : workloads)
            list.push_back(describe_workload(*w));
        fmt::print("{}\n", nlohmann::json{{"workloads", list}}.dump(2));
        return kOk;
    }
    for (const auto* w : workloads) {
        const auto d = describe_workload(*w);
        std::string backends;
        for (const auto& b : d.at("backends"))
            backends += fmt::format("{}{}", backends.empty() ? "" : ", ", b.get<std::string>());
        fmt::print("{}  [{}]\n  {}\n", w->name(), backends, w->description());
        for (const auto& p : w->params()) {
            std::string values;
            for (const auto& v : p.values)
                values += fmt::format("{}{}", values.empty() ? "" : ", ", value_text(v));
            fmt::print("  param  {:<12} default {:<8} values {}  {}\n", p.name, value_text(p.default_value), values,
                       p.description);
        }
        for (const auto& m : w->metrics())
            fmt::print("  metric {:<12} {:<6} {} is better  {}\n", m.name, m.unit, to_string(m.direction), m.description);
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
