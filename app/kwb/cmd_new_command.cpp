// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb new --baseline-cmd ... --treatment-cmd ...`: the external-command form (docs/adapters.md).
#include "commands.h"
#include "hardware/device_sheet.h"
#include "ledger_hook.h"
#include "new_options.h"
#include "study/study_file.h"
#include "workloads/command/command_study.h"
#include "workloads/command/command_workload.h"

#include <cmath>
#include <fmt/format.h>
#include <map>

namespace kwb::cli::new_form {
namespace {

// ---- The external-command form (docs/adapters.md) ----
// The rules live in the engine (workloads/command/command_study.h), shared with the window's
// File > New command A/B; here the options become a request and its errors name the options.

CommandSpec command_arm(const NewOptions& o, const std::string& cmd, const std::string& option,
    const nlohmann::json& adapter_options, const std::string& own_check)
{
    if (cmd.empty())
        throw BadInput(fmt::format("{}: both --baseline-cmd and --treatment-cmd are needed", option));
    CommandSpec c;
    c.cmd = cmd;
    c.cwd = o.cwd;
    for (const auto& kv : o.env) {
        const auto [k, v] = split_assignment(kv, "--env");
        c.env[k] = v;
    }
    if (o.timeout != 0) { // 0: the default
        if (!(o.timeout > 0) || !std::isfinite(o.timeout))
            throw BadInput("--timeout: must be a number of seconds above 0");
        c.timeout_s = o.timeout;
    }
    if (o.max_output_mib != 0) {
        if (!(o.max_output_mib >= kMinOutputMib && o.max_output_mib <= kMaxOutputMib))
            throw BadInput(fmt::format(
                "--max-output: {} must be between {} and {} (MiB)", o.max_output_mib, kMinOutputMib, kMaxOutputMib));
        c.max_output_mib = o.max_output_mib;
    }
    c.check = own_check.empty() ? o.check_cmd : own_check; // --baseline-check / --treatment-check, else shared
    c.adapter = o.adapter.empty() ? "auto" : o.adapter;
    c.adapter_options = adapter_options;
    return c;
}

// The option that sets a field of the engine's request, for its error message.
std::string option_of(const std::string& field)
{
    static const std::map<std::string, std::string> option
        = {{"baseline", "--baseline-cmd"}, {"treatment", "--treatment-cmd"}, {"adapter", "--adapter"},
            {"metric", "--metric"}, {"profile", "--profile"}, {"runs_per_arm", "--runs"}, {"warmup_runs", "--warmup"},
            {"split_halves", "--split-half"}, {"duration_s", "--duration"}, {"max_seconds", "--max-seconds"},
            {"backend", "--backend"}, {"expect_differ", "--expect-differ"}};
    const auto it = option.find(field);
    return it == option.end() ? field : it->second;
}

} // namespace

Study build_command_study(const NewOptions& o)
{
    if (!o.workload.empty() || !o.vary.empty() || !o.params.empty())
        throw BadInput("--baseline-cmd: the command form takes no --workload, --vary or --param");
    nlohmann::json options = nlohmann::json::object();
    if (!o.adapter_options.empty()) {
        options = nlohmann::json::parse(o.adapter_options, nullptr, false);
        if (!options.is_object())
            throw BadInput(fmt::format("--adapter-options: expected a JSON object, got '{}'", o.adapter_options));
    }
    if (!o.check_cmd.empty() && (!o.baseline_check.empty() || !o.treatment_check.empty()))
        throw BadInput(fmt::format("{}: give --check-cmd (one check for both arms) or --baseline-check and "
                                   "--treatment-check (one per arm), not both",
            o.baseline_check.empty() ? "--treatment-check" : "--baseline-check"));
    command::CommandStudyRequest r;
    r.baseline = command_arm(o, o.baseline_cmd, "--baseline-cmd", options, o.baseline_check);
    r.treatment = command_arm(o, o.treatment_cmd, "--treatment-cmd", options, o.treatment_check);
    r.metric = o.metric;
    r.name = o.name;
    r.guards = o.guards;
    r.profile = o.profile;
    r.aa_arm = o.aa_arm; // the baseline command again, as its own arm (study/arm_roles.h)
    r.backend = o.backend;
    r.expect_differ = o.expect_differ;
    if (o.runs < 1)
        throw BadInput("--runs: must be at least 1");
    r.plan.runs_per_arm = planned_runs(o);
    r.plan.warmup_runs = o.warmup;
    r.plan.order = o.order == "abba" ? RunOrder::Abba : RunOrder::RandomisedBlocks;
    r.plan.seed = o.seed;
    r.plan.stop = o.stop == "duration" ? StopRule::Duration
        : o.stop == "decision"         ? StopRule::Decision
                                       : StopRule::Count;
    r.plan.duration_s = o.duration_s;
    r.plan.max_seconds = o.max_seconds;
    r.plan.split_halves = o.split_half;
    Study s;
    try {
        s = command::new_command_study(r);
    } catch (const command::CommandStudyError& e) {
        throw BadInput(fmt::format("{}: {}", option_of(e.field()), e.what()));
    }
    if (o.metric.empty() && r.baseline.adapter == "auto")
        fmt::print(stderr,
            "kwb: note: --metric not given; judging {} (serving benchmarks: give e.g. --metric ttft_ms)\n",
            s.experiments.front().metric);
    s.description += " Written by kwb new.";
    const DeviceSheet sheet = collect_devices();
    s.hardware.captured_at = utc_now_iso8601();
    s.hardware.devices = sheet.devices;
    return s;
}

int run_command_form(const NewOptions& o)
{
    const Study study = write_new_study(o, build_command_study);
    const auto& e = study.experiments.front();
    fmt::print(stderr, "kwb: wrote {}: {} ({} runs per arm, {} order, adapter {}{})\n", o.out, study.name,
        e.plan.runs_per_arm, to_string(e.plan.order), e.arms[0].command->adapter,
        e.arms[0].command->check.empty() && e.arms[1].command->check.empty()
            ? "; no --check-cmd: the arms are unverified"
            : e.arms[0].command->check.empty() ? "; no --baseline-check: the baseline is unverified"
            : e.arms[1].command->check.empty() ? "; no --treatment-check: the treatment is unverified"
                                               : "");
    print_aa_note(study);
    if (o.expected_noise)
        print_expected_noise(study);
    return kOk;
}

void add_command_form_options(CLI::App* cmd, NewOptions& o)
{
    cmd->add_option(
        "--baseline-cmd", o.baseline_cmd, "External baseline command (run by /bin/sh; {out} = result file)");
    cmd->add_option("--treatment-cmd", o.treatment_cmd, "External treatment command");
    cmd->add_option("--adapter", o.adapter, "Metric adapter of the commands: auto or a name (see kwb adapters)");
    cmd->add_option("--adapter-options", o.adapter_options,
        "Adapter options as JSON: {\"select\":...}, {\"map\":...}, {\"patterns\":[...]}");
    cmd->add_option("--timeout", o.timeout,
        "Seconds one repetition of a command may run, reading its output included (default 600)");
    cmd->add_option("--max-output", o.max_output_mib,
        "MiB of stdout, stderr or result file a repetition may write; past it the repetition fails (default 64)");
    cmd->add_option("--cwd", o.cwd, "Working directory of the commands");
    cmd->add_option("--env", o.env, "Environment override of the commands, K=V (repeatable)");
    cmd->add_option("--check-cmd", o.check_cmd, "Correctness check run once per arm before timing (exit 0 = correct)");
    cmd->add_option("--baseline-check", o.baseline_check,
        "The baseline's own correctness check (exit 0 = correct), instead of a shared --check-cmd");
    cmd->add_option("--treatment-check", o.treatment_check,
        "The treatment's own correctness check (exit 0 = correct), instead of a shared --check-cmd");
    cmd->add_option("--expect-differ", o.expect_differ,
        "A fingerprint field the arms are expected to report differently, e.g. benchmark (repeatable): shown "
        "with the verdict, not a blocker");
}

} // namespace kwb::cli::new_form
