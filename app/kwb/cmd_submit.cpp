// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb submit STUDY`: a Slurm job array, one task per runnable experiment (grid cell or A/B), each
// task running `kwb run STUDY --cell ID` into its part file (docs/cluster.md). `--cell ID`
// resubmits one experiment alone (a failed or preempted task); its part, when it holds samples,
// is resumed where it stopped.
#include "builtin_workloads.h"
#include "commands.h"
#include "run/run_session.h"
#include "slurm.h"
#include "study/new_attempt.h"
#include "study/study_file.h"
#include "study/study_parts.h"
#include "subprocess.h"
#include "util/atomic_file.h"

#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <unistd.h>

namespace kwb::cli {
namespace {
namespace fs = std::filesystem;

struct SubmitOptions {
    std::string study;
    std::string partition;
    int gpus_per_task = -1; // -1: 1 when an experiment may run on CUDA, else none
    std::string time;
    std::vector<std::string> cells;
    std::string backend;
    bool dry_run = false;
    std::vector<std::string> sbatch; // after "--"
};

std::string quoted(const std::string& text)
{
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string program_path()
{
    char buffer[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string("kwb");
}

// The newest copy of an experiment: its part when there is one, else the study's.
ExperimentStatus newest_status(const fs::path& study_path, const Experiment& e)
{
    const fs::path part = part_path(study_path, e.id);
    if (!fs::exists(part))
        return e.status;
    try {
        const Study p = load_study(part);
        if (part_problem(p, e.id).empty() && holds_all_samples_of(p.experiments[0], e))
            return p.experiments[0].status;
    } catch (const std::exception&) {
    }
    return e.status;
}

int submit(const SubmitOptions& o)
{
    Study study;
    try {
        study = load_study(o.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    const fs::path study_path = fs::absolute(o.study);
    std::map<std::string, slurm::Submission> submissions;
    try {
        submissions = slurm::read_submissions(study_path);
    } catch (const std::exception& e) {
        throw BadInput(e.what());
    }
    std::string problem;
    const auto states
        = o.dry_run ? std::map<std::string, slurm::TaskState> {} : slurm::task_states(submissions, problem);
    if (!problem.empty())
        throw std::runtime_error(fmt::format("cannot ask Slurm: {} (is this a Slurm login node?)", problem));
    const auto queued = [&](const std::string& id) -> std::string {
        const auto s = submissions.find(id);
        if (s == submissions.end())
            return {};
        const auto st = states.find(s->second.job_task());
        return st != states.end() && slurm::in_queue(st->second.state)
            ? fmt::format("{} ({})", s->second.job_task(), st->second.state)
            : std::string();
    };

    std::vector<const Experiment*> chosen;
    const bool named = !o.cells.empty();
    for (const auto& id : o.cells) {
        const Experiment* e = study.find_experiment(id);
        if (!e)
            throw BadInput(fmt::format("{}: --cell: the study has no experiment '{}'", o.study, id));
        const ExperimentStatus s = newest_status(study_path, *e);
        if (s == ExperimentStatus::Done || s == ExperimentStatus::Failed)
            throw BadInput(fmt::format("{}: --cell {}: it is {} (done and failed experiments are not rerun; kwb "
                                       "collect folds a finished part)",
                o.study, id, to_string(s)));
        if (const auto q = queued(id); !q.empty())
            throw BadInput(fmt::format(
                "{}: --cell {}: it is already in Slurm's queue as task {}; scancel it first", o.study, id, q));
        chosen.push_back(e);
    }
    if (!named)
        for (const auto& e : study.experiments) {
            const ExperimentStatus s = newest_status(study_path, e);
            if (s == ExperimentStatus::Done || s == ExperimentStatus::Failed)
                continue;
            if (const auto q = queued(e.id); !q.empty()) {
                fmt::print(stderr, "kwb: {}: {} is already queued as task {}; not submitted again\n", o.study, e.id, q);
                continue;
            }
            chosen.push_back(&e);
        }
    // Each task runs `kwb run --cell`: what it would refuse is refused here, before a job array is
    // queued. The machine's own GPUs do not matter: the tasks run on the cluster's nodes.
    const RunSession session(builtin_workloads(), {o.study, o.backend, 0, false, false});
    for (const auto* e : chosen)
        session.check(study, *e, RunSession::Where::Elsewhere);
    if (chosen.empty()) {
        fmt::print(stderr, "kwb: {}: nothing to submit (every experiment is done, failed or queued)\n", o.study);
        return kOk;
    }

    int gpus = o.gpus_per_task;
    if (gpus < 0) {
        gpus = 0;
        for (const auto* e : chosen) {
            const std::string backend = o.backend.empty() ? e->backend : o.backend;
            if (backend == "cuda" || (backend == "auto" && e->workload != "command"))
                gpus = 1;
        }
    }
    const fs::path dir = parts_dir(study_path);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw BadInput(fmt::format("{}: cannot create the folder of part files: {}", dir.string(), ec.message()));
    int n = 1;
    while (fs::exists(dir / fmt::format("submit-{}.sh", n)))
        ++n;
    const fs::path script_path = dir / fmt::format("submit-{}.sh", n);
    std::string script = fmt::format("#!/bin/sh\n# Written by kwb submit at {}: one array task per experiment of\n"
                                     "# {}, each running `kwb run STUDY --cell ID` into {}/ID.json.\n"
                                     "# kwb status STUDY shows them; kwb collect STUDY folds the finished parts.\n"
                                     "case \"$SLURM_ARRAY_TASK_ID\" in\n",
        utc_now_iso8601(), study_path.string(), dir.string());
    for (size_t i = 0; i < chosen.size(); ++i)
        script += fmt::format("{}) cell={} ;;\n", i, quoted(chosen[i]->id));
    script += "*) echo \"kwb submit: no experiment for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n";
    script += fmt::format("exec {} run {} --cell \"$cell\"{}\n", quoted(program_path()), quoted(study_path.string()),
        o.backend.empty() ? "" : " --backend " + o.backend);
    write_file_atomically(script_path, script);
    fs::permissions(script_path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);

    std::vector<std::string> argv {"sbatch", "--parsable", fmt::format("--array=0-{}", chosen.size() - 1),
        fmt::format("--job-name=kwb-{}", study_path.stem().string()),
        fmt::format("--output={}/slurm-%A_%a.out", dir.string())};
    if (!o.partition.empty())
        argv.push_back("--partition=" + o.partition);
    if (gpus > 0)
        argv.push_back(fmt::format("--gpus-per-task={}", gpus));
    if (!o.time.empty())
        argv.push_back("--time=" + o.time);
    argv.insert(argv.end(), o.sbatch.begin(), o.sbatch.end());
    argv.push_back(script_path.string());
    if (o.dry_run) {
        std::string line;
        for (const auto& a : argv)
            line += (line.empty() ? "" : " ") + quoted(a);
        fmt::print("{}\n", line);
        for (size_t i = 0; i < chosen.size(); ++i)
            fmt::print("task {}: {}\n", i, chosen[i]->id);
        return kOk;
    }
    const auto result = run_process(argv);
    if (!result.start_error.empty())
        throw std::runtime_error(
            fmt::format("cannot run sbatch: {} (is this a Slurm login node?)", result.start_error));
    if (result.exit_code != 0) {
        std::string why = result.err.empty() ? result.out : result.err;
        while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
            why.pop_back();
        throw std::runtime_error(fmt::format("sbatch exited {}: {}", result.exit_code, why));
    }
    std::string job = result.out.substr(0, result.out.find_first_of(";\n"));
    const std::string at = utc_now_iso8601();
    for (size_t i = 0; i < chosen.size(); ++i) {
        slurm::Submission s;
        if (const auto old = submissions.find(chosen[i]->id); old != submissions.end()) {
            s.earlier = old->second.earlier;
            s.earlier.push_back(old->second.job_task());
        }
        s.job = job;
        s.task = static_cast<int>(i);
        s.submitted_at = at;
        submissions[chosen[i]->id] = s;
    }
    slurm::write_submissions(study_path, submissions);
    fmt::print("submitted job array {}: {} task{}\n", job, chosen.size(), chosen.size() == 1 ? "" : "s");
    for (size_t i = 0; i < chosen.size(); ++i)
        fmt::print("  {}_{}: {}\n", job, i, chosen[i]->id);
    return kOk;
}

} // namespace

void add_submit_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("submit",
        "Submit the study's runnable experiments as a Slurm job array, one task per experiment (each runs kwb run "
        "--cell into its part file)");
    auto o = std::make_shared<SubmitOptions>();
    cmd->add_option("STUDY", o->study, "The study file (on a filesystem the compute nodes share)")->required();
    cmd->add_option("SBATCH_OPTIONS", o->sbatch, "After --: options passed to sbatch as they are");
    cmd->add_option("--partition", o->partition, "The Slurm partition");
    cmd->add_option("--gpus-per-task", o->gpus_per_task,
           "GPUs per task (default: 1 when an experiment may run on CUDA, none for CPU-only ones)")
        ->check(CLI::Range(0, 64));
    cmd->add_option("--time", o->time, "The time limit of each task, as sbatch takes it (e.g. 30:00)");
    cmd->add_option("--cell", o->cells, "Submit only this experiment (repeatable): resubmits a failed task alone");
    cmd->add_option("--backend", o->backend, "auto, cpu or cuda, passed to each task's kwb run")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_flag("--dry-run", o->dry_run, "Write the batch script and print the sbatch command; submit nothing");
    cmd->callback([&action, o] { action = [o] { return submit(*o); }; });
}

} // namespace kwb::cli
