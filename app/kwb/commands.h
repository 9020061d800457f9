// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>

namespace kwb::cli {

// Exit statuses of spec/cli.md.
enum ExitCode : int { kOk = 0, kRunFailed = 1, kBadInput = 2, kFailOn = 3, kStopped = 130 };

// Bad input (a file, an option, a study): main prints "kwb: <what>" on one line and exits 2.
class BadInput : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The chosen command's work, run after parsing succeeds; returns the exit status.
using Action = std::function<int()>;

// Each registers its subcommand on `app`; when it is chosen, its callback sets `action`.
void add_devices_command(CLI::App& app, Action& action);
void add_workloads_command(CLI::App& app, Action& action);
void add_verdict_command(CLI::App& app, Action& action);
void add_new_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);
void add_predict_command(CLI::App& app, Action& action);
void add_calibrate_command(CLI::App& app, Action& action);
// The report records its own command line in the provenance.
void add_report_command(CLI::App& app, Action& action, int argc, char** argv);
void add_trace_command(CLI::App& app, Action& action);
void add_adapters_command(CLI::App& app, Action& action);
void add_aa_history_command(CLI::App& app, Action& action);
// Spread-out runs (docs/cluster.md): folding part files, Slurm job arrays and their status.
void add_collect_command(CLI::App& app, Action& action);
void add_submit_command(CLI::App& app, Action& action);
void add_status_command(CLI::App& app, Action& action);
void add_profile_command(CLI::App& app, Action& action);
// The ledger (docs/ledger.md): attempts across studies, one benchmark's history, the CI gate.
void add_ledger_command(CLI::App& app, Action& action);
void add_history_command(CLI::App& app, Action& action);
void add_gate_command(CLI::App& app, Action& action);
// One run of a command arm, nothing recorded: the window's Test once.
void add_test_arm_command(CLI::App& app, Action& action);
// The first commit that regressed, over a study of two commits (docs/git-arms.md).
void add_bisect_command(CLI::App& app, Action& action);
void add_remote_command(CLI::App& app, Action& action);

} // namespace kwb::cli
