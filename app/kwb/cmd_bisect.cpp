// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb bisect STUDY --good REF --bad REF`: the first commit whose verdict against the good commit is
// a regression (docs/git-arms.md). The rules are the engine's (verdict/bisect.h); each step is an
// experiment of the study, run as kwb run runs one (RunSession), then judged.
#include "builtin_workloads.h"
#include "commands.h"
#include "run/run_session.h"
#include "stop_signal.h"
#include "study/arm_roles.h"
#include "study/git_arm.h"
#include "study/new_attempt.h"
#include "study/path_names.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "verdict/bisect.h"
#include "workloads/git/git_repo.h"

#include <filesystem>
#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

struct BisectOptions {
    std::string study, good, bad;
    int runs = 0; // 0: the study's own runs per arm
    std::string backend;
};

const Experiment& template_experiment(const Study& s, const std::string& path)
{
    for (const auto& e : s.experiments)
        if (is_git_experiment(e))
            return e;
    throw BadInput(fmt::format("{}: kwb bisect needs a study of two commits (kwb new --git-baseline ... "
                               "--git-treatment ...)",
        path));
}

// One step: the candidate against the good commit, in a study of its own (the session then runs
// nothing else), its results copied back into the study and saved.
Experiment run_step(Study& study, const std::string& path, const Experiment& tmpl, const GitArm& good,
    const GitArm& candidate, int runs, const std::string& backend)
{
    Experiment e = fresh_attempt(tmpl);
    e.id = unique_experiment_id(study, "bisect", 1);
    e.plan.runs_per_arm = runs;
    for (Arm& arm : e.arms) {
        *arm_cwd(arm) = "";
        set_git_arm(arm, &arm == ab_arms(e).treatment ? candidate : good);
    }
    sync_aa_arm(e);
    e.controls.notes
        = fmt::format("kwb bisect: {} against the good commit {}", short_commit(candidate), short_commit(good));
    Study one = study;
    one.experiments = {e};
    const std::string scratch = path + ".bisect-step.json";
    save_study(one, scratch);
    RunSettings settings;
    settings.study = path; // the kernels' file is the study's
    settings.backend = backend;
    const RunSession session(builtin_workloads(), settings);
    const SessionPlan plan = session.plan(one);
    for (const auto& n : plan.notices)
        fmt::print(stderr, "kwb: {}\n", n);
    SessionIo io;
    io.file = scratch;
    io.notice = [](const std::string& line) { fmt::print(stderr, "kwb: {}\n", line); };
    const SessionResult result = session.run(one, plan, io);
    std::error_code ec;
    std::filesystem::remove(scratch, ec);
    study.experiments.push_back(one.experiments.front());
    for (const auto& l : one.ledger)
        if (l.experiment_id == e.id)
            study.ledger.push_back(l);
    save_study(study, path);
    if (result.status != "done")
        throw std::runtime_error(fmt::format("{}: bisect step {} ended {}", path, e.id, result.status));
    return study.experiments.back();
}

int run(const BisectOptions& o)
{
    // One writer per study, as kwb run: taken before the study is read, so a second bisect or a
    // kwb run can neither load a copy that goes stale nor save over this one's steps.
    LockHolder holder;
    std::optional<StudyLock> lock;
    try {
        lock = lock_study_for_exit(o.study, &holder);
    } catch (const std::exception& e) {
        throw BadInput(fmt::format("{} (kwb bisect locks the study while it runs)", e.what()));
    }
    if (!lock)
        throw BadInput(fmt::format("{}: is being run by {} (one kwb run or kwb bisect per study; wait for it or "
                                   "stop it)",
            o.study, holder.describe()));
    struct ReleaseAtExit {
        ~ReleaseAtExit() { set_exit_cleanup_path(""); }
    } release_at_exit;
    Study study;
    try {
        study = load_study(o.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    const Experiment tmpl = template_experiment(study, o.study);
    const GitArm base = *git_arm_of(*ab_arms(tmpl).baseline);
    GitArm good = base, bad = base;
    std::vector<std::string> commits;
    try {
        good = git::resolve_arm(base.repo, o.good, false, "--good");
        bad = git::resolve_arm(base.repo, o.bad, false, "--bad");
        commits = git::commits_between(base.repo, good.sha, bad.sha);
    } catch (const git::GitError& e) {
        throw BadInput(e.what());
    }
    for (GitArm* g : {&good, &bad}) {
        g->build = base.build;
        g->toolchain = base.toolchain;
    }
    if (commits.empty())
        throw BadInput("--bad: it is the good commit; nothing to search");
    const int runs = o.runs > 0 ? o.runs : tmpl.plan.runs_per_arm;
    BisectSearch search(commits);
    fmt::print(
        stderr, "kwb: bisect: {} commits after {} up to {}\n", commits.size(), short_commit(good), short_commit(bad));
    while (!search.done()) {
        const int mid = search.next();
        GitArm candidate = good;
        candidate.sha = candidate.ref = commits[static_cast<size_t>(mid)];
        StepCall call;
        for (int attempt = 0; attempt < 2; ++attempt) { // INCONCLUSIVE: once more with twice the runs
            const Experiment& step
                = run_step(study, o.study, tmpl, good, candidate, attempt == 0 ? runs : 2 * runs, o.backend);
            call = call_bisect_step(step);
            fmt::print(stderr, "kwb: bisect {}: {} {} — {}\n", step.id, candidate.sha.substr(0, 12),
                to_string(call.outcome), call.reason);
            BisectSearch after = search;
            after.mark(mid, call.outcome);
            // The search as it stands after this call, in the study: its reader needs no repository.
            study.experiments.back().bisect
                = BisectStepRecord {bad.sha, static_cast<int>(commits.size()), after.hi - after.lo - 1};
            save_study(study, o.study);
            if (call.outcome != StepOutcome::Inconclusive)
                break;
        }
        if (call.outcome == StepOutcome::Inconclusive) {
            fmt::print("range left: {}..{} (INCONCLUSIVE twice at {})\n",
                search.lo < 0 ? good.sha : commits[static_cast<size_t>(search.lo)],
                commits[static_cast<size_t>(search.hi)], candidate.sha);
            return kRunFailed;
        }
        search.mark(mid, call.outcome);
    }
    const std::string& first = commits[static_cast<size_t>(search.hi)];
    fmt::print("first bad commit: {} {}\n", first, git::subject(base.repo, first));
    return kOk;
}

} // namespace

void add_bisect_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand(
        "bisect", "A study of two commits: the first commit between --good and --bad whose A/B is a regression");
    auto o = std::make_shared<BisectOptions>();
    cmd->add_option("STUDY", o->study, "A study of two commits (kwb new --git-baseline ... --git-treatment ...)")
        ->required();
    cmd->add_option("--good", o->good, "A ref whose performance is good")->required();
    cmd->add_option("--bad", o->bad, "A later ref that regressed")->required();
    cmd->add_option("--runs", o->runs, "Runs per arm of each step (default: the study's)");
    cmd->add_option("--backend", o->backend, "auto, cpu or cuda (default: the study's)")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->callback([o, &action] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
