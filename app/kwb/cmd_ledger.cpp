// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb ledger [filters] [--json]`: every judged attempt the ledger indexed (docs/ledger.md);
// `kwb ledger import DIR` indexes the study files under DIR; `kwb ledger rebuild [DIR...]` makes
// the index again from the study files alone.
#include "commands.h"
#include "ledger/ledger_index.h"
#include "ledger/ledger_query.h"

#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

struct LedgerOptions {
    ledger::Filter filter;
    bool json = false;
    std::vector<std::string> dirs;
};

ledger::Database open_ledger()
{
    try {
        return ledger::Database(ledger::ledger_path());
    } catch (const std::exception& e) {
        throw BadInput(e.what());
    }
}

std::string cell(const std::optional<double>& v, const char* format = "{:+.2f}")
{
    return v ? fmt::format(fmt::runtime(format), *v) : std::string("-");
}

int list(const LedgerOptions& o)
{
    auto db = open_ledger();
    std::vector<ledger::ExperimentRow> rows;
    try {
        rows = ledger::list_attempts(db, o.filter);
    } catch (const ledger::LedgerError& e) {
        throw BadInput(e.what());
    }
    if (o.json) {
        nlohmann::json attempts = nlohmann::json::array();
        for (const auto& r : rows)
            attempts.push_back(ledger::to_json(r));
        fmt::print("{}\n", nlohmann::json {{"ledger", db.path().string()}, {"attempts", attempts}}.dump(2));
        return kOk;
    }
    if (rows.empty()) {
        fmt::print("No attempt in the ledger matches ({}); kwb ledger import DIR indexes existing studies.\n",
            db.path().string());
        return kOk;
    }
    fmt::print("{:<10} {:<28} {:<30} {:<18} {:<12} {:>8} {:>19} {:>7} {:>7}\n", "date", "study:experiment", "benchmark",
        "device", "verdict", "delta%", "95% CI", "sigma%", "n");
    for (const auto& r : rows) {
        const std::string name = std::filesystem::path(r.study_path).filename().string() + ":" + r.experiment_id;
        const std::string ci = r.ci_lo && r.ci_hi ? fmt::format("[{:+.2f}, {:+.2f}]", *r.ci_lo, *r.ci_hi) : "-";
        fmt::print("{:<10} {:<28} {:<30} {:<18} {:<12} {:>8} {:>19} {:>7} {:>7}\n", r.at.substr(0, 10), name,
            r.benchmark_key, r.device.model.empty() ? "-" : r.device.model,
            r.final_word.empty() ? r.word : r.final_word, cell(r.delta_pct), ci, cell(r.sigma_pct, "{:.2f}"),
            fmt::format("{}/{}", r.n_baseline, r.n_treatment));
    }
    return kOk;
}

void report(const ledger::ImportResult& r, const char* verb)
{
    fmt::print("{} {} experiment{} from {} stud{}\n", verb, r.experiments, r.experiments == 1 ? "" : "s", r.studies,
        r.studies == 1 ? "y" : "ies");
    for (const auto& s : r.skipped)
        fmt::print(stderr, "kwb: skipped {}\n", s);
    for (const auto& d : r.dropped)
        fmt::print(stderr, "kwb: {}: gone, dropped from the index\n", d);
}

int import(const std::string& dir)
{
    auto db = open_ledger();
    try {
        report(ledger::import_dir(db, dir), "indexed");
    } catch (const ledger::LedgerError& e) {
        throw BadInput(e.what());
    }
    return kOk;
}

int rebuild(const std::vector<std::string>& dirs)
{
    auto db = open_ledger();
    try {
        report(ledger::rebuild(db, {dirs.begin(), dirs.end()}), "rebuilt: indexed");
    } catch (const ledger::LedgerError& e) {
        throw BadInput(e.what());
    }
    return kOk;
}

} // namespace

void add_ledger_command(CLI::App& app, Action& action)
{
    auto* cmd
        = app.add_subcommand("ledger", "Every judged attempt across studies, devices and commits (docs/ledger.md)");
    auto o = std::make_shared<LedgerOptions>();
    cmd->add_option(
        "--kernel", o->filter.kernel, "Attempts whose kernel, workload, benchmark key or study name has this");
    cmd->add_option("--key", o->filter.benchmark_key, "Attempts of this benchmark key (or a prefix naming one)");
    cmd->add_option("--device", o->filter.device, "Attempts on a device model containing this, e.g. H200");
    cmd->add_option(
        "--verdict", o->filter.verdict, "Attempts with this final verdict (LICENSE, KILL, NOISE, INCONCLUSIVE)");
    cmd->add_option("--since", o->filter.since, "Attempts on or after this date (YYYY-MM-DD)");
    cmd->add_option("--until", o->filter.until, "Attempts on or before this date (YYYY-MM-DD)");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    auto* import_cmd = cmd->add_subcommand("import", "Index the study files under DIR (recursively)");
    import_cmd->add_option("DIR", o->dirs, "The folder")->required()->expected(1);
    auto* rebuild_cmd = cmd->add_subcommand("rebuild", "Make the index again from the study files it names (and DIRs)");
    rebuild_cmd->add_option("DIR", o->dirs, "Folders of studies to index too");
    cmd->require_subcommand(0, 1);
    import_cmd->callback([&action, o] { action = [o] { return import(o->dirs.front()); }; });
    rebuild_cmd->callback([&action, o] { action = [o] { return rebuild(o->dirs); }; });
    cmd->callback([&action, o, cmd] {
        if (cmd->get_subcommands().empty())
            action = [o] { return list(*o); };
    });
}

} // namespace kwb::cli
