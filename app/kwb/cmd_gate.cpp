// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb gate STUDY-or-KEY --fail-on regression`: a CI gate. Exit 0 no regression, 3 a regression
// (as `kwb report --fail-on`), 2 bad input; a Markdown summary for a pull-request comment on
// stdout (and in --markdown FILE). The rule is verdict/regression.h's, asked through ledger/gate.h.
#include "commands.h"
#include "ledger/gate.h"
#include "study/study_file.h"
#include "util/atomic_file.h"

#include <filesystem>
#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

struct GateOptions {
    std::string target;
    std::string fail_on;
    std::string device;
    std::string markdown;
    double tolerance_pct = 0;
};

int run(const GateOptions& o)
{
    ledger::GateResult result;
    std::error_code ec;
    try {
        if (std::filesystem::is_regular_file(o.target, ec)) {
            const Study study = load_study(o.target);
            result = ledger::gate_study(study, o.target, o.tolerance_pct);
        } else {
            ledger::Database db(ledger::ledger_path());
            result = ledger::gate_history(db, o.target, o.device, o.tolerance_pct);
        }
    } catch (const std::exception& e) { // not a study, not a key, nothing judged
        throw BadInput(fmt::format("{} (kwb gate takes a study file or a benchmark key of the ledger)", e.what()));
    }
    const std::string md = ledger::gate_markdown(result, o.tolerance_pct);
    fmt::print("{}", md);
    if (!o.markdown.empty()) {
        try {
            write_file_atomically(o.markdown, md);
        } catch (const std::exception& e) {
            throw BadInput(e.what());
        }
    }
    return !o.fail_on.empty() && result.regressed() ? kFailOn : kOk;
}

} // namespace

void add_gate_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("gate", "A CI gate: exit 3 when a study or a ledger benchmark regressed");
    auto o = std::make_shared<GateOptions>();
    cmd->add_option("TARGET", o->target, "A study file, or a benchmark key of the ledger (or a prefix naming one)")
        ->required();
    cmd->add_option("--fail-on", o->fail_on, "Exit 3 on a regression (the guard rule of spec/verdict.md)")
        ->check(CLI::IsMember({"regression"}));
    cmd->add_option("--tolerance", o->tolerance_pct, "A worsening up to this delta% is not a regression (default 0)")
        ->check(CLI::Range(0.0, 100.0));
    cmd->add_option("--device", o->device, "For a key: only this device model (default: the latest attempt on each)");
    cmd->add_option("--markdown", o->markdown, "Also write the Markdown summary to this file");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
