// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb new --git-baseline REF --git-treatment REF --build CMD --cmd CMD|--worker CMD`: two commits
// of a repository as the arms (docs/git-arms.md). kwb new resolves and records both commits, the
// build command and the toolchain; kwb run builds each commit in its worktree and runs the arms there.
#include "builtin_workloads.h"
#include "commands.h"
#include "new_options.h"
#include "run/runnability.h"
#include "study/arm_roles.h"
#include "study/git_arm.h"
#include "workloads/git/git_repo.h"
#include "workloads/git/toolchain.h"
#include "workloads/worker/worker_workload.h"

#include <filesystem>
#include <fmt/format.h>

namespace kwb::cli::new_form {
namespace {

void check_options(const NewOptions& o)
{
    if (o.git_baseline.empty() || o.git_treatment.empty())
        throw BadInput(fmt::format("{}: both --git-baseline and --git-treatment are needed",
            o.git_baseline.empty() ? "--git-baseline" : "--git-treatment"));
    if (o.build.empty())
        throw BadInput("--build: commit arms need the command that builds a commit (run in its worktree)");
    if (o.git_cmd.empty() == o.worker.empty())
        throw BadInput("--cmd: commit arms run one program in each worktree: give --cmd CMD or --worker CMD");
    for (const auto& [option, given] : {std::pair {"--baseline-cmd", !o.baseline_cmd.empty()},
             {"--treatment-cmd", !o.treatment_cmd.empty()}, {"--baseline-worker", !o.baseline_worker.empty()},
             {"--treatment-worker", !o.treatment_worker.empty()}, {"--workload", !o.workload.empty()},
             {"--vary", !o.vary.empty()}, {"--grid", !o.grids.empty()}, {"--cwd", !o.cwd.empty()}})
        if (given)
            throw BadInput(fmt::format("{}: commit arms differ by their commits; the program is --cmd or --worker, "
                                       "run in each commit's worktree",
                option));
    if (!o.worker.empty())
        for (const auto& [option, given] :
            {std::pair {"--adapter", !o.adapter.empty()}, {"--check-cmd", !o.check_cmd.empty()},
                {"--baseline-check", !o.baseline_check.empty()}, {"--treatment-check", !o.treatment_check.empty()}})
            if (given)
                throw BadInput(
                    fmt::format("{}: applies to --cmd commit arms (a worker verifies its own output)", option));
}

Study build_git_study(const NewOptions& o)
{
    check_options(o);
    std::string repo;
    GitArm base, treat;
    try {
        repo = git::toplevel(std::filesystem::absolute(o.repo).lexically_normal().string());
        if (!o.allow_dirty && git::dirty(repo))
            throw git::GitError(fmt::format("--repo: {} has uncommitted changes to tracked files; commit them, or "
                                            "give --allow-dirty (then the ref WORKTREE names the tree as it is)",
                repo));
        base = git::resolve_arm(repo, o.git_baseline, o.allow_dirty, "--git-baseline");
        treat = git::resolve_arm(repo, o.git_treatment, o.allow_dirty, "--git-treatment");
    } catch (const git::GitError& e) {
        throw BadInput(e.what());
    }
    base.build = treat.build = o.build;
    base.toolchain = treat.toolchain = git::probe_toolchain();

    // The command form makes the plan, metric, profile, checks and A/A arm; its own rule that two
    // typed commands differ is for commands typed by hand, so it is given two placeholders, and the
    // arms then get the program and their commits. Whether the arms can run (one commit twice is
    // an A/A) is the runnability rule's call, below.
    NewOptions c = o;
    c.baseline_cmd = "true # baseline";
    c.treatment_cmd = "true # treatment";
    if (!o.worker.empty())
        c.adapter.clear();
    Study s = build_command_study(c);
    Experiment& e = s.experiments.front();
    for (Arm& arm : e.arms) {
        arm.command->cmd = o.git_cmd;
        if (!o.worker.empty()) {
            WorkerSpec w;
            w.cmd = o.worker;
            w.env = arm.command->env;
            w.timeout_s = arm.command->timeout_s;
            w.max_output_mib = arm.command->max_output_mib;
            arm.worker = w;
            arm.command.reset();
        }
        set_git_arm(arm, &arm == ab_arms(e).treatment ? treat : base);
    }
    if (!o.worker.empty()) {
        e.workload = worker::kWorkerWorkload;
        e.metric = o.metric.empty() ? "time_ms" : o.metric;
        s.target.metric = e.metric;
    }
    sync_aa_arm(e);
    const std::string program = o.worker.empty() ? o.git_cmd : o.worker;
    s.name = o.name.empty() ? fmt::format("commits: {} vs {}", short_commit(base), short_commit(treat)) : o.name;
    s.description = fmt::format("A/B of two commits of {}: {} (baseline) against {} (treatment), each built by `{}` "
                                "and run by `{}` in its worktree. Written by kwb new.",
        repo, short_commit(base), short_commit(treat), o.build, program);
    s.target.kernel = fmt::format("`{}` at each commit of {}", program, repo);
    const Runnability r = check_runnable(builtin_workloads(), s, e, o.backend == "auto" ? "" : o.backend);
    if (!r.problem.empty())
        throw BadInput(fmt::format("--git-treatment: {}", r.problem));
    return s;
}

} // namespace

int run_git_form(const NewOptions& o)
{
    const Study study = write_new_study(o, build_git_study);
    const auto& e = study.experiments.front();
    const auto b = git_arm_of(*ab_arms(e).baseline), t = git_arm_of(*ab_arms(e).treatment);
    fmt::print(stderr,
        "kwb: wrote {}: {} ({} runs per arm, {} order; baseline {}, treatment {}; kwb run builds each "
        "commit in its worktree)\n",
        o.out, study.name, e.plan.runs_per_arm, to_string(e.plan.order), b->sha, t->sha);
    print_aa_note(study);
    return kOk;
}

void add_git_form_options(CLI::App* cmd, NewOptions& o)
{
    cmd->add_option("--git-baseline", o.git_baseline, "Commit arms: the baseline's ref (a commit, branch or tag)");
    cmd->add_option("--git-treatment", o.git_treatment, "Commit arms: the treatment's ref");
    cmd->add_option("--repo", o.repo, "Commit arms: the repository (default: the current directory)");
    cmd->add_option("--build", o.build, "Commit arms: the build command, run once per commit in its worktree");
    cmd->add_option(
        "--cmd", o.git_cmd, "Commit arms: the benchmark command run in each worktree ({out} as for commands)");
    cmd->add_flag("--allow-dirty", o.allow_dirty,
        "Commit arms: accept uncommitted changes; the ref WORKTREE then names the working tree as it is");
}

} // namespace kwb::cli::new_form
