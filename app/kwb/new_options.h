// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/plan_limits.h"
#include "study/study.h"
#include "workloads/workload.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// `kwb new`'s options and what its two forms share: the built-in workload form (cmd_new.cpp) and the
// external-command form (cmd_new_command.cpp).
namespace kwb::cli::new_form {

struct NewOptions {
    std::string workload;
    std::vector<std::string> params;
    std::string vary;
    std::vector<std::string> grids; // NAME=a,b[,c[,d]], exactly two: a grid instead of --vary
    std::string metric;
    int runs = kDefaultRunsPerArm;
    std::string out = "study.json";
    bool force = false;
    std::string name;
    std::string order = "abba";
    std::uint64_t seed = 1;
    std::string stop = "count";
    double duration_s = 0;
    double max_seconds = 3600;
    int warmup = 1;
    int split_half = 0; // --split-half[=K]: the split-half stability check
    int old_aa = 0; // --aa, its name before the real A/A arm: refused with the new names
    bool aa_arm = false; // --aa-arm: a third arm, the baseline again
    bool expected_noise = false; // --expected-noise: the ledger's sigma of this benchmark, shown (docs/ledger.md)
    double min_rep_ms = 10;
    std::string profile = "generic";
    std::string backend = "auto";
    std::vector<std::string> guards;
    // External commands (docs/adapters.md): the command form of kwb new.
    std::string baseline_cmd, treatment_cmd, adapter;
    double timeout = 0;
    double max_output_mib = 0; // 0: the default (CommandSpec)
    std::string cwd, check_cmd, adapter_options;
    std::vector<std::string> env;
    std::string baseline_check, treatment_check; // per-arm checks of command arms
    std::vector<std::string> expect_differ; // fingerprint fields the command arms may report apart
    // Worker arms (docs/worker-protocol.md): one worker and --vary / --grid over its parameters,
    // or two workers. --cwd, --env, --timeout and --max-output apply to them too.
    std::string worker, baseline_worker, treatment_worker;
    // NaN: not given, the default (WorkerSpec); any number given is checked (-inf too).
    double atol = std::numeric_limits<double>::quiet_NaN(), rtol = std::numeric_limits<double>::quiet_NaN();
    // Commit arms (docs/git-arms.md): two refs of a repository, built by --build, run by --cmd or --worker.
    std::string git_baseline, git_treatment, repo = ".", build, git_cmd;
    bool allow_dirty = false;
};

// Runs per arm as the plan stores them: whole ABBA blocks, an odd --runs rounded up with a note.
int planned_runs(const NewOptions& o);
// NAME=VALUE of an option, or bad input naming it.
std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option);
// Both forms end alike: refuse to overwrite without --force, build, save (a failed save is bad input).
Study write_new_study(const NewOptions& o, Study (*build)(const NewOptions&));
// The A/A arm written, said once.
void print_aa_note(const Study& study);

// The built-in form's study for a workload (a built-in one, or a worker's description as one):
// with `fixed_backend` the arms are written for that backend and nothing is checked against the
// GPU here (a worker picks its own device).
Study build_study_for(const NewOptions& o, const Workload& workload, std::optional<Backend> fixed_backend);
// --vary and --grid: exactly one of them, a grid with two variables; bad input otherwise.
void check_vary_or_grid(const NewOptions& o);
ParamSpec find_param(const Workload& w, const std::string& name, const std::string& option);
nlohmann::json typed_value(const ParamSpec& spec, const std::string& text, const std::string& option);

// The worker form (cmd_new_worker.cpp).
int run_worker_form(const NewOptions& o);
void add_worker_form_options(CLI::App* cmd, NewOptions& o);

// The command form.
int run_command_form(const NewOptions& o);
void add_command_form_options(CLI::App* cmd, NewOptions& o);
// The command form's study of o.baseline_cmd and o.treatment_cmd (bad input naming the option).
Study build_command_study(const NewOptions& o);

// The commit form (cmd_new_git.cpp): --git-baseline REF --git-treatment REF.
int run_git_form(const NewOptions& o);
void add_git_form_options(CLI::App* cmd, NewOptions& o);

} // namespace kwb::cli::new_form
