// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb collect STUDY`: folds the part files of cells run apart (kwb run --cell, kwb submit) into
// the study, under the study's lock, and judges them; the study is saved once, atomically, and
// only when something changed, so running it twice changes nothing (docs/cluster.md).
#include "builtin_workloads.h"
#include "commands.h"
#include "ledger_hook.h"
#include "run/fold_parts.h"
#include "stop_signal.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "study/study_parts.h"
#include "util/atomic_file.h"

#include <fmt/format.h>
#include <memory>
#include <optional>

namespace kwb::cli {
namespace {

int collect(const std::string& path)
{
    // SIGINT or SIGTERM: exit 130 at once while nothing is written (spec/cli.md's stop status, not a
    // death by the signal); during the save, after it (the study stays whole either way).
    const std::atomic<bool>& stop = install_stop_signals();
    set_exit_at_once(true);
    LockHolder holder;
    std::optional<StudyLock> lock;
    try {
        lock = lock_study_for_exit(path, &holder);
    } catch (const std::exception& e) {
        throw BadInput(fmt::format("{} (kwb collect locks the study while it folds)", e.what()));
    }
    if (!lock)
        throw BadInput(fmt::format(
            "{}: is being run by {} (it folds its own parts; collect after it ends)", path, holder.describe()));
    struct ForgetAtExit {
        ~ForgetAtExit() { set_exit_cleanup_path(""); }
    } forget_at_exit;
    for (const auto& leftover : remove_stale_temporaries(path))
        fmt::print(stderr, "kwb: removed {}, left by a save that was cut short\n", leftover.string());
    Study study;
    try {
        study = load_study(path);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    const auto reports = fold_parts(builtin_workloads(), study, path, {});
    if (reports.empty())
        fmt::print(stderr, "kwb: {}: no part files in {}\n", path, parts_dir(path).string());
    for (const auto& r : reports) {
        const Experiment* e = study.find_experiment(r.id);
        const std::string verdict = e && e->final_verdict ? std::string(to_string(e->final_verdict->word)) : "-";
        fmt::print("{}: {}; {} in the study, verdict {}\n", r.id, r.outcome,
            e ? std::string(to_string(e->status)) : "absent", verdict);
    }
    if (any_changed(reports)) {
        set_protected(true);
        save_study(study, path);
        set_protected(false);
        index_in_ledger(path, study); // the machine that holds the study indexes it (docs/ledger.md)
        for (const auto& grid : study.grids)
            if (grid.interaction)
                fmt::print("{}: interaction: {}\n", grid.id, grid.interaction->summary);
    }
    return stop.load() ? kStopped : kOk; // a signal during the save: saved, then the stop status
}

} // namespace

void add_collect_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand(
        "collect", "Fold the part files of cells run apart (kwb run --cell, kwb submit) into the study and judge them");
    auto path = std::make_shared<std::string>();
    cmd->add_option("STUDY", *path, "The study file (its parts are in STUDY.parts/)")->required();
    cmd->callback([&action, path] { action = [path] { return collect(*path); }; });
}

} // namespace kwb::cli
