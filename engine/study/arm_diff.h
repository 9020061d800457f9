// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// The arm diff of methodology phase 5: which parameters differ between baseline and treatment.
// A single-variable A/B changes exactly one; a second change makes the result unattributable, so
// running such a pair needs the user's explicit acknowledgement (Experiment::acknowledged_multi_variable).
namespace kwb {

struct Arm;
struct CommandSpec;
struct WorkerSpec;

struct ParamDifference {
    std::string name;
    nlohmann::json baseline; // effective value (given, else the default), null when unknown
    nlohmann::json treatment;
};

struct ArmDiff {
    std::vector<ParamDifference> differences; // effective values differ, sorted by name
    // Set explicitly on one arm only while the effective values agree: the "forced setting on one
    // arm" trap (a production default on one side, the same value forced on the other). Not a
    // difference, but worth showing beside the diff.
    std::vector<std::string> one_sided;

    bool single_variable() const { return differences.size() <= 1; }
    // "block, threads": the differing names, for messages.
    std::string names() const;
};

// `defaults` fills in parameters an arm leaves out (a workload's defaults); it may be empty.
// Numbers compare by value, so 128 and 128.0 are the same setting.
ArmDiff diff_arms(const nlohmann::json& baseline, const nlohmann::json& treatment,
    const nlohmann::json& defaults = nlohmann::json::object());

// Two external-command arms (docs/adapters.md): which of their settings differ, as text: "command"
// (the command line), "cwd", "env.NAME" for each override (null on the arm that does not set it),
// "timeout_s", "max_output_mib", "check", "setup", "teardown", "setup_each", "teardown_each",
// "adapter", "adapter_options". A command line is opaque to the engine (one changed flag and three look
// alike), so this diff says what differs; it cannot count the variables inside a command line.
ArmDiff diff_commands(const CommandSpec& baseline, const CommandSpec& treatment);

// Two worker arms (docs/worker-protocol.md). With one command: their parameters (the defaults
// from the baseline's recorded description) and any setting that differs ("cwd", "env.NAME",
// "timeout_s", "max_output_mib", "atol", "rtol"). With two commands: like diff_commands, what
// differs as text ("command" and those settings); the parameters of two programs are not compared.
ArmDiff diff_workers(const WorkerSpec& baseline, const nlohmann::json& baseline_params, const WorkerSpec& treatment,
    const nlohmann::json& treatment_params);

// Schema 8: the commits of two commit arms (Arm::git, docs/git-arms.md), appended to `diff` as
// "git.repo", "git.ref", "git.sha", "git.diff_sha256", "git.build", "git.compiler", "git.cuda",
// "git.driver" where they differ (an arm without a commit reads as empty), then sorted by name.
void add_commit_differences(ArmDiff& diff, const Arm& baseline, const Arm& treatment);
// The diff of an A/B's two arms: their commands' when both are external commands, their workers'
// when both are workers (with their commits' differences for both), else their parameters'
// (`defaults` as above).
ArmDiff diff_arm_pair(
    const Arm& baseline, const Arm& treatment, const nlohmann::json& defaults = nlohmann::json::object());

} // namespace kwb
