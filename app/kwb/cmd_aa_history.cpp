// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb aa-history [--json]`: every device's false-alarm rate over the real A/A runs kwb run has
// recorded on this machine (run/aa_history.h), with its Clopper-Pearson 95% interval.
#include "commands.h"
#include "run/aa_history.h"

#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

int run(bool json)
{
    const auto path = aa_history_path();
    int skipped = 0;
    std::vector<AaHistoryEntry> history;
    try {
        history = read_aa_history(path, &skipped);
    } catch (const std::exception& e) {
        throw BadInput(e.what());
    }
    const auto rates = aa_false_alarm_rates(history);
    if (json) {
        nlohmann::json devices = nlohmann::json::array();
        for (const auto& r : rates)
            devices.push_back({{"device", r.device}, {"runs", r.runs}, {"false_alarms", r.false_alarms},
                {"false_alarm_rate", r.rate}, {"ci95", r.ci95}, {"summary", describe(r)}});
        fmt::print("{}\n",
            nlohmann::json {
                {"path", path.string()}, {"entries", history.size()}, {"skipped_lines", skipped}, {"devices", devices}}
                .dump(2));
        return kOk;
    }
    if (history.empty())
        fmt::print("No A/A runs recorded yet ({}); kwb new --aa-arm adds an A/A arm to a study.\n", path.string());
    for (const auto& r : rates)
        fmt::print("{}\n", describe(r));
    if (skipped > 0)
        fmt::print(stderr, "kwb: {}: {} unreadable line{} skipped\n", path.string(), skipped, skipped == 1 ? "" : "s");
    return kOk;
}

} // namespace

void add_aa_history_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand(
        "aa-history", "Each device's A/A false-alarm rate over every real A/A kwb run recorded on this machine");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Machine-readable output");
    cmd->callback([&action, json] { action = [json] { return run(*json); }; });
}

} // namespace kwb::cli
