// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb history KEY [--device MODEL] [--json]`: one benchmark's metric over commits or dates on one
// device model, each point with its 95% CI, and the change points of the stated method
// (ledger/change_points.h, docs/ledger.md).
#include "commands.h"
#include "ledger/ledger_history.h"
#include "ledger/ledger_query.h"

#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

struct HistoryOptions {
    std::string key;
    std::string device;
    ledger::ChangePointOptions change;
    bool json = false;
};

int run(const HistoryOptions& o)
{
    ledger::History h;
    try {
        ledger::Database db(ledger::ledger_path());
        h = ledger::load_history(db, ledger::resolve_key(db, o.key), o.device, o.change);
    } catch (const std::exception& e) { // an unknown key or device, a bad window: bad input
        throw BadInput(e.what());
    }
    if (o.json) {
        fmt::print("{}\n", ledger::to_json(h).dump(2));
        return kOk;
    }
    fmt::print("{} on {}: {} ({} is better), {} point{}\n{}\n", h.benchmark_key, h.device_model, h.metric, h.direction,
        h.points.size(), h.points.size() == 1 ? "" : "s", h.method);
    size_t next = 0;
    for (size_t i = 0; i < h.points.size(); ++i) {
        const auto& p = h.points[i];
        if (next < h.change_points.size() && h.change_points[next].index == i) {
            const auto& c = h.change_points[next++];
            fmt::print("---- change point: {:+.2f}% ({}; sigma {:.2f}%, Welch p {:.2g})\n", c.delta_pct,
                c.regression ? "worse" : "better", c.sigma_pct, c.p_welch);
        }
        fmt::print("{:>3}  {:<20} {:>12.6g}  [{:.6g}, {:.6g}]  n={:<4} {:<12} {}:{}\n", i,
            p.commit.empty() ? p.at.substr(0, 19) : p.commit.substr(0, 12), p.value, p.ci_lo, p.ci_hi, p.n, p.word,
            p.study_path, p.experiment_id);
    }
    if (h.change_points.empty())
        fmt::print("No change point.\n");
    return kOk;
}

} // namespace

void add_history_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand(
        "history", "One benchmark's metric over commits or dates on one device model, with its change points");
    auto o = std::make_shared<HistoryOptions>();
    cmd->add_option("KEY", o->key, "A benchmark key of the ledger (kwb ledger lists them), or a prefix naming one")
        ->required();
    cmd->add_option("--device", o->device, "The device model (default: the one with the most points)");
    cmd->add_option("--window", o->change.window, "Points on each side of a split (default 5)")
        ->check(CLI::Range(2, 1000));
    cmd->add_option("--alpha", o->change.alpha, "Welch's p must be below this for a change point (default 0.001)")
        ->check(CLI::Range(1e-12, 0.5));
    cmd->add_flag("--json", o->json, "Machine-readable output");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
