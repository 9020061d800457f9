// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb run STUDY`: runs the study's pending (or stopped) experiments and writes the results into
// STUDY atomically after every finished repetition (spec/cli.md). Everything is checked before
// anything runs, so bad input never leaves a half-started study behind.
#include "builtin_workloads.h"
#include "commands.h"
#include "ledger_hook.h"
#include "progress_bar.h"
#include "progress_stream.h"
#include "remote_run.h"
#include "run/aa_history.h"
#include "run/run_session.h"
#include "run_devices.h"
#include "stop_signal.h"
#include "study/grid.h"
#include "study/new_attempt.h"
#include "study/path_names.h"
#include "study/remote_marker.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "study/study_parts.h"
#include "util/atomic_file.h"
#include "util/process_containment.h"
#include "verdict/aa_verdict.h"
#include "verdict/grid_interaction.h"
#include "verdict/verdict.h"
#include "verdict/verdict_story.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <unistd.h>

namespace kwb::cli {
namespace {

struct RunOptions {
    std::string study;
    std::string backend; // empty: each experiment's own setting
    bool json_progress = false;
    bool new_attempt = false;
    bool continue_runs = false; // --continue: add runs to the finished experiment
    std::optional<int> continue_to; // --runs-per-arm with --continue
    bool no_cupti = false; // CUPTI PM sampling off (NVML and procfs stay)
    int device = 0; // the CUDA device index
    bool new_device = false;
    // Spread-out runs (docs/cluster.md): one experiment into its part file, or every runnable
    // experiment over worker processes, one per listed device.
    std::string cell;
    bool device_given = false;
    std::vector<int> devices;
    RemoteRunOptions remote; // --host, --remote-kwb, --remote-dir, --attach (docs/remote.md)
};

// Notices and results are never worth a run: a closed stderr or stdout (EPIPE, SIGPIPE being
// ignored) must not throw out of the loop that saves the study.
template<typename... Args> void say(std::FILE* to, fmt::format_string<Args...> format, Args&&... args)
{
    try {
        const std::string text = fmt::format(format, std::forward<Args>(args)...);
        std::fputs(text.c_str(), to);
        std::fflush(to);
    } catch (const std::exception&) {
    }
}

RunSettings session_settings(const RunOptions& o)
{
    RunSettings s {o.study, o.backend, o.device, o.new_device, o.new_attempt, o.device_given || !o.devices.empty()};
    s.continue_runs = o.continue_runs;
    s.continue_to = o.continue_to;
    return s;
}

// `kwb run STUDY --cell ID`: the part to run. An existing part is resumed when it holds every
// sample the study holds for that experiment; otherwise (none yet, or the study moved on since)
// a fresh part is made from the study's copy.
Study load_cell(const RunOptions& o, const std::string& file)
{
    const Study source = load_study(o.study);
    const Experiment* original = source.find_experiment(o.cell);
    if (!original)
        throw BadInput(fmt::format("{}: --cell: the study has no experiment '{}'", o.study, o.cell));
    if (std::filesystem::exists(file)) {
        Study part = load_study(file);
        if (const auto problem = part_problem(part, o.cell); !problem.empty())
            throw BadInput(fmt::format("{}: {}", file, problem));
        if (holds_all_samples_of(part.experiments[0], *original))
            return part;
        say(stderr, "kwb: {}: the study holds samples this part lacks; starting the part again from the study\n", file);
    }
    return make_part(source, o.cell);
}

// Where a spread-out run ran: the --devices entry, this host, the Slurm array task.
Placement placement_here(const RunOptions& o)
{
    Placement p;
    if (o.device_given)
        p.device = o.device;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0)
        p.host = host;
    const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
    const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
    const char* job = std::getenv("SLURM_JOB_ID");
    if (array_job && array_task)
        p.slurm_job = fmt::format("{}_{}", array_job, array_task);
    else if (job)
        p.slurm_job = job;
    return p;
}

void print_result(const Experiment& e)
{
    if (!e.final_verdict || !e.verdict) {
        say(stdout, "{}: {} ({}), no verdict\n", e.id, to_string(e.status), e.stop_reason);
        return;
    }
    const SampleVerdict& v = *e.verdict;
    const auto num = [](const std::optional<double>& x) { return x ? fmt::format("{:.4g}", *x) : std::string("-"); };
    say(stdout, "{}: n = {}/{}, delta {}%, sigma {}%; sample verdict {}; final verdict {}\n", e.id, v.n_baseline(),
        v.n_treatment(), num(v.delta_pct), num(v.sigma_pct), to_string(v.word), to_string(e.final_verdict->word));
    // The verdict's story (verdict/verdict_story.h): the sentences the window and the reports say.
    for (const auto& line : story_lines(verdict_story(*e.final_verdict, v)))
        say(stdout, "{}: {}\n", e.id, line);
    const std::string aa = e.aa_verdict ? aa_summary(*e.aa_verdict) : std::string();
    if (!aa.empty()) // beside the A/B's verdict, so not again among the reasons
        say(stdout, "{}: {}{}\n", e.id, aa, aa_false_alarm(*e.aa_verdict) ? " (a false alarm)" : "");
    say(stdout, "{}: all reasons:\n", e.id);
    for (const auto& r : e.final_verdict->reasons)
        if (aa.empty() || !r.starts_with(aa))
            say(stdout, "  - {}\n", r);
}

// `kwb run STUDY --devices 0,1,...`: the parent of worker processes (run_devices.h); every
// experiment is checked here first, as a plain run would, so bad input stops all before any runs.
int run_devices(const RunOptions& o)
{
    DevicesRunRequest request;
    request.study = o.study;
    request.devices = o.devices;
    request.backend = o.backend;
    request.json_progress = o.json_progress;
    request.no_cupti = o.no_cupti;
    const RunSession session(builtin_workloads(), session_settings(o));
    const auto check_one = [&o, &session](const Study& study, Experiment& e) {
        const Runnability r = session.check(study, e);
        for (const auto& notice : r.notices)
            say(stderr, "kwb: {}: experiment {}: {}\n", o.study, e.id, notice);
        if (r.backend == Backend::Cuda)
            for (const int d : o.devices)
                device_identity_here(Backend::Cuda, d); // throws naming a device that is not here
        return std::string(to_string(r.backend));
    };
    return run_on_devices(request, check_one);
}

int run(const RunOptions& o)
{
    if (!o.devices.empty())
        return run_devices(o);
    // Where the results go: the study, or with --cell the experiment's part file beside it.
    const std::string file = o.cell.empty() ? o.study : part_path(o.study, o.cell).string();
    if (!o.cell.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(parts_dir(o.study), ec);
        if (ec)
            throw BadInput(fmt::format(
                "{}: cannot create the folder of part files: {}", parts_dir(o.study).string(), ec.message()));
    }
    // A signal from here until the first repetition exits 130 at once: loading a big study or
    // checking it can take seconds, and nothing measured is in flight yet.
    const std::atomic<bool>& stop = install_stop_signals();
    set_exit_at_once(true);
    if (o.json_progress)
        end_stream_on_immediate_exit(stdout);
    // Orphans of command arms (a daemon that called setsid) reparent here, where the arm's
    // process control finds and ends them (util/process_containment.h).
    become_subreaper();
    // One writer per study: taken before the study is read, so a second run can neither load a
    // copy that goes stale nor save over this one's samples.
    LockHolder holder;
    std::optional<StudyLock> lock;
    try {
        lock = lock_study_for_exit(file, &holder);
    } catch (const std::exception& e) {
        throw BadInput(fmt::format("{} (kwb run locks the study while it runs)", e.what()));
    }
    if (!lock)
        throw BadInput(fmt::format(
            "{}: is being run by {} (one kwb run per study; wait for it or stop it)", file, holder.describe()));
    struct ReleaseAtExit {
        ~ReleaseAtExit() { set_exit_cleanup_path(""); }
    } release_at_exit;
    // A study handed to a remote host is that run's until it comes back (study/remote_marker.h).
    if (const std::string away = remote_run_refusal(o.study); !away.empty())
        throw BadInput(fmt::format("{}: {}", o.study, away));
    // Holding the lock, no other kwb saves this study: temporary files beside it whose process is
    // gone are what a killed save left behind.
    for (const auto& leftover : remove_stale_temporaries(file))
        say(stderr, "kwb: removed {}, left by a save that was cut short\n", leftover.string());
    if (stop.load())
        return kStopped;
    Study study;
    try {
        study = o.cell.empty() ? load_study(o.study) : load_cell(o, file);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    const RunSession session(builtin_workloads(), session_settings(o));
    const SessionPlan plan = session.plan(study);
    for (const auto& notice : plan.notices)
        say(stderr, "kwb: {}\n", notice);
    if (!o.cell.empty() && !plan.experiments.empty())
        study.experiments[0].placement = placement_here(o);

    // A study that could not be saved is found before anything runs, like any other bad input.
    if (!plan.experiments.empty()) {
        try {
            check_replaceable(file);
        } catch (const std::exception& e) {
            throw BadInput(fmt::format("{} (kwb run saves its results into the study)", e.what()));
        }
    }
    // A reader that closes the pipe (`| head -1`, a GUI that died) must not kill kwb between a
    // repetition and its save: ignore SIGPIPE, and let the stream stop the run cleanly instead.
    std::signal(SIGPIPE, SIG_IGN);
    std::unique_ptr<ProgressStreamWriter> stream;
    std::unique_ptr<ProgressBar> bar;
    FanOutObserver observer;
    if (o.json_progress) {
        stream = std::make_unique<ProgressStreamWriter>(
            stdout, file, [] { request_stop(); }, &stop);
        observer.add(stream.get());
    } else if (o.cell.empty() && isatty(STDERR_FILENO)) { // workers of a spread-out run share the terminal
        bar = std::make_unique<ProgressBar>(stderr);
        observer.add(bar.get());
    }
    if (plan.experiments.empty()) {
        set_exit_at_once(false); // a signal now must not add a second `end` to this one
        say(stderr, "kwb: {}: no pending experiments (done and failed ones are not rerun)\n", o.study);
        observer.on_end("done", kOk);
        return kOk;
    }

    // What the session asks of this command: the stream and the bar, a repetition and its save
    // protected from a signal (which then waits for them: the run stops at the next boundary),
    // and the lines people read.
    SessionIo io;
    io.file = file;
    io.observer = &observer;
    io.cancel = &stop;
    io.no_cupti = o.no_cupti;
    io.judge_grids = o.cell.empty();
    io.before_repetition = [] { set_protected(true); };
    io.guarded = [](const std::function<void()>& save) {
        set_protected(true);
        save();
        set_protected(false);
    };
    io.notice = [](const std::string& line) { say(stderr, "kwb: {}\n", line); };
    io.experiment_done = [&o](const Experiment& e, RunOutcome) {
        if (!o.json_progress)
            print_result(e);
    };
    io.grid_judged = [&o](const Study& s, const GridGroup& grid) {
        if (o.json_progress || !grid.interaction)
            return;
        say(stdout, "{}: interaction: {}\n", grid.id, grid.interaction->summary);
        if (const auto aa = grid_aa_line(s, grid); !aa.empty()) // the grid's A/A beside it
            say(stdout, "{}: {}\n", grid.id, aa);
    };
    io.aa_recorded
        = [&stream](const Experiment& e, const std::optional<AaFalseAlarmRate>& rate, const std::string& problem) {
              if (!problem.empty())
                  say(stderr, "kwb: {}: the A/A history was not kept: {}\n", e.id, problem);
              if (stream)
                  stream->on_aa_history(e, rate, problem);
              else if (rate)
                  say(stdout, "{}: {}\n", e.id, describe(*rate));
          };

    // From here a signal only sets the flag: the run stops at the next boundary, saves, ends the
    // stream with `stopped` and exits 130 (docs/cli.md). The computations inside a run are
    // bounded (plan limits; the large-n bootstrap interval), so the boundary comes soon.
    set_exit_at_once(false);
    SessionResult result;
    try {
        result = session.run(study, plan, io);
    } catch (const std::exception& ex) {
        // A save that failed, or an experiment that cannot run: say so in the stream too.
        observer.on_error(ex.what(), false);
        observer.on_end("failed", kRunFailed);
        throw;
    }
    // The saved study's judged experiments join the ledger; a part file's join when it is folded.
    if (o.cell.empty())
        index_in_ledger(o.study, study);
    int code = kOk;
    if (result.status == "failed") {
        const Experiment* e = study.find_experiment(result.failed_experiment);
        say(stderr, "kwb: {}: experiment {} failed: {}\n", o.study, result.failed_experiment, e ? e->error : "");
        code = kRunFailed;
    } else if (result.status == "stopped") {
        if (const Experiment* e = study.find_experiment(result.stopped_experiment))
            say(stderr, "kwb: {}: stopped {}; {} kept\n", o.study,
                stop_signal_number() ? "by a signal" : "because the progress stream's reader went away",
                e->samples.size() == 1 ? "1 sample" : fmt::format("{} samples", e->samples.size()));
        code = kStopped;
    }
    observer.on_end(result.status, code);
    return code;
}

} // namespace

void add_run_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("run", "Run a study's pending experiments, saving after every repetition");
    auto o = std::make_shared<RunOptions>();
    cmd->add_option("STUDY", o->study, "The study file (results are written back into it)")->required();
    cmd->add_option("--backend", o->backend, "auto, cpu or cuda (default: each experiment's own setting)")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_flag("--json-progress", o->json_progress, "Write the progress stream (JSON lines) on stdout");
    cmd->add_flag("--new-attempt", o->new_attempt,
        "A finished study: run a new attempt of its last experiment (kept beside the earlier ones)");
    auto* continue_flag = cmd->add_flag("--continue", o->continue_runs,
        "A finished study: add runs to its last experiment (the same experiment, same order), to the verdict's "
        "estimate or --runs-per-arm");
    auto* runs_to = cmd->add_option("--runs-per-arm", o->continue_to,
                           "With --continue: the runs per arm to continue to (more than it holds)")
                        ->check(CLI::PositiveNumber);
    runs_to->needs(continue_flag);
    continue_flag->excludes("--new-attempt");
    cmd->add_flag("--no-cupti", o->no_cupti, "GPU runs: no CUPTI PM sampling (NVML and CPU lanes stay)");
    cmd->add_option("--device", o->device, "The CUDA device to run on (default 0)");
    auto* new_device = cmd->add_flag("--new-device", o->new_device,
        "Continue an experiment measured on another device model as a new experiment on this one");
    auto* cell = cmd->add_option("--cell", o->cell,
                        "Run only this experiment (a grid cell), into its part file STUDY.parts/ID.json (kwb collect "
                        "folds it)")
                     ->check(
                         [](const std::string& id) { // before anything is made of it: "../x" names no part
                             const auto problem = path_name_problem(id);
                             return problem.empty() ? std::string()
                                                    : fmt::format("the experiment id {} {}", shown_name(id), problem);
                         },
                         "ID");
    auto* devices = cmd->add_option("--devices", o->devices,
                           "Run independent experiments in parallel, one worker process per listed device (CUDA "
                           "indices; CPU runs: worker slots), e.g. 0,1")
                        ->delimiter(',')
                        ->check(CLI::NonNegativeNumber);
    devices->excludes(cell)->excludes(new_device)->excludes("--device")->excludes("--new-attempt");
    devices->excludes(continue_flag);
    cell->excludes(new_device)->excludes("--new-attempt")->excludes(continue_flag);
    auto* host = cmd->add_option("--host", o->remote.host,
        "Run on this ssh destination (as ssh understands it; KWB_SSH replaces the ssh command): the study is sent, "
        "runs there detached, and comes back when the run ends");
    cmd->add_option(
        "--remote-kwb", o->remote.remote_kwb, "With --host: the kwb program there (default: kwb on its PATH)");
    cmd->add_option("--remote-dir", o->remote.remote_dir,
        "With --host: the folder there for remote runs (default .kwb/runs under the remote home)");
    auto* attach = cmd->add_flag("--attach", o->remote.attach,
        "Follow the remote run that owns the study (after a dropped connection), or fetch it when it has ended");
    // A part file belongs beside its study: a cell runs where the study is.
    host->excludes(cell);
    attach->excludes(cell);
    cmd->callback([&action, o, cmd] {
        o->device_given = cmd->count("--device") > 0;
        if (o->remote.host.empty() && !o->remote.attach) {
            action = [o] { return run(*o); };
            return;
        }
        o->remote.study = o->study;
        o->remote.json_progress = o->json_progress;
        // The run's own options go to the remote kwb as given.
        for (const char* name : {"--backend", "--device", "--devices", "--runs-per-arm"})
            if (cmd->count(name) > 0) {
                std::string values;
                for (const auto& value : cmd->get_option(name)->results())
                    values += (values.empty() ? "" : ",") + value;
                o->remote.run_arguments.insert(o->remote.run_arguments.end(), {name, values});
            }
        for (const char* name : {"--new-attempt", "--no-cupti", "--new-device", "--continue"})
            if (cmd->count(name) > 0)
                o->remote.run_arguments.emplace_back(name);
        action = [o] { return run_remote(o->remote); };
    });
}

} // namespace kwb::cli
