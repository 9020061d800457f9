// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb adapters [--json]`: the metric adapters of external commands with the keys and units each
// reads, and the canonical metric names with their definitions (docs/adapters.md).
#include "commands.h"
#include "workloads/command/adapter.h"

#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

int run(bool json)
{
    const auto adapters = command::describe_adapters();
    nlohmann::json canonical = nlohmann::json::array();
    for (const auto& c : command::canonical_metrics())
        canonical.push_back({{"metric", c.metric}, {"unit", c.unit}, {"direction", std::string(to_string(c.direction))},
            {"definition", c.description}});
    if (json) {
        fmt::print("{}\n", nlohmann::json {{"adapters", adapters}, {"canonical_metrics", canonical}}.dump(2));
        return kOk;
    }
    fmt::print("Canonical metrics:\n");
    for (const auto& c : canonical)
        fmt::print("  {:<18} {:<9} {:<7} {}\n", c["metric"].get<std::string>(), c["unit"].get<std::string>(),
            c["direction"].get<std::string>(), c["definition"].get<std::string>());
    for (const auto& a : adapters) {
        fmt::print("\n{}{}: {}\n", a["name"].get<std::string>(), a["detects"].get<bool>() ? "" : " (by name only)",
            a["description"].get<std::string>());
        for (const auto& k : a["keys"])
            fmt::print("  {:<40} -> {:<18} {:<8} {}\n", k["key"].get<std::string>(), k["metric"].get<std::string>(),
                k["unit"].get<std::string>(), k["description"].get<std::string>());
    }
    return kOk;
}

} // namespace

void add_adapters_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("adapters", "List the metric adapters of external commands and the keys they read");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Machine-readable output");
    cmd->callback([&action, json] { action = [json] { return run(*json); }; });
}

} // namespace kwb::cli
