// SPDX-License-Identifier: GPL-3.0-or-later
// kwb: the Kernel Workbench engine without a window (spec/cli.md).
#include "commands.h"
#include "remote_install.h"
#include "run/run_session.h"
#include "stdout_check.h"
#include "util/atomic_file.h"

#include <cstdio>
#include <fmt/format.h>

int main(int argc, char** argv)
{
    using namespace kwb::cli;
    CLI::App app {"kwb: the Kernel Workbench engine without a window.\n"
                  "Runs matched A/B studies of GPU and CPU kernels and judges them license-or-kill."};
    app.name("kwb");
    app.set_version_flag("--version", "kwb " KWB_VERSION);
    app.require_subcommand(0, 1);
    app.fallthrough(false);

    forget_bundle_library_path(); // an installed bundle's libraries are for kwb, not what it starts
    ignore_broken_pipe_signal();
    Action action;
    add_devices_command(app, action);
    add_workloads_command(app, action);
    add_verdict_command(app, action);
    add_new_command(app, action);
    add_run_command(app, action);
    add_bisect_command(app, action);
    add_predict_command(app, action);
    add_calibrate_command(app, action);
    add_report_command(app, action, argc, argv);
    add_trace_command(app, action);
    add_adapters_command(app, action);
    add_aa_history_command(app, action);
    add_collect_command(app, action);
    add_submit_command(app, action);
    add_status_command(app, action);
    add_profile_command(app, action);
    add_test_arm_command(app, action);
    add_ledger_command(app, action);
    add_history_command(app, action);
    add_gate_command(app, action);
    add_remote_command(app, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion&) {
        std::puts("kwb " KWB_VERSION);
        return kOk;
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "kwb: {}\n", e.what());
        return kBadInput;
    } catch (const BadInput& e) {
        fmt::print(stderr, "kwb: {}\n", e.what());
        return kBadInput;
    }
    if (!action) {
        fmt::print(stderr, "kwb: a command is required (see kwb --help)\n");
        return kBadInput;
    }
    try {
        const int code = action();
        return app.got_subcommand("run") ? code : checked_stdout(code);
    } catch (const BadInput& e) {
        fmt::print(stderr, "kwb: {}\n", e.what());
        return kBadInput;
    } catch (const kwb::RunRefused& e) { // the engine's run session refused the study (bad input)
        fmt::print(stderr, "kwb: {}\n", e.what());
        return kBadInput;
    } catch (const kwb::NotARegularFile& e) { // any output path that is a device, FIFO, socket or folder
        fmt::print(stderr, "kwb: {}\n", e.what());
        return kBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "kwb: {}\n", e.what());
        return kRunFailed;
    }
}
