// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <filesystem>
#include <string>
#include <vector>

// Part files: an experiment run apart from its study (`kwb run STUDY --cell ID`, run by a worker of
// `kwb run --devices` or by a Slurm array task) writes into its own file beside the study,
// `STUDY.parts/ID.json`, and locks only that file, so cells run at once without sharing a writer.
// A part is a study document (same schema) holding the study with that one experiment. Folding
// (`kwb collect`, and the --devices parent as each worker ends) copies the part's experiment back
// into the study under the study's lock. One owner of "which copy is ahead": a copy is ahead when
// it holds every sample the other holds, in the same order, and more or a later state.
namespace kwb {

// "STUDY.parts" beside the study (links followed, like saves and locks).
std::filesystem::path parts_dir(const std::filesystem::path& study);
// "STUDY.parts/ID.json". Throws std::invalid_argument for an id that is not a path name
// (study/path_names.h): a part never lands outside STUDY.parts/.
std::filesystem::path part_path(const std::filesystem::path& study, const std::string& id);
// The experiment ids that have a part file, sorted (files whose names no id could have are skipped).
std::vector<std::string> part_ids(const std::filesystem::path& study);

// A part's first document: `study` with only experiment `id` and its ledger entry. Throws
// std::invalid_argument when the study has no such experiment.
Study make_part(const Study& study, const std::string& id);

// The part's experiment: its only one, named `id`; empty string when it is, else the problem.
std::string part_problem(const Study& part, const std::string& id);

// Whether `copy` holds every sample `original` holds (same arm, position and start, in order):
// continuing or folding `copy` loses nothing of `original`.
bool holds_all_samples_of(const Experiment& copy, const Experiment& original);

// What the run wrote into an experiment, as JSON, without what judging the study sets (the
// verdicts, the split-half check, the A/A verdict): two copies equal by this are the same measurement.
nlohmann::json measured_state(const Experiment& e);

enum class FoldOutcome {
    Folded, // the study's experiment was replaced by the part's
    Unchanged, // the study already holds what the part holds
    Behind, // the study holds samples the part lacks: left alone, nothing is lost
    NotInStudy, // the study has no experiment of that id
};

// Folds the part's experiment into `study` (replacing the experiment of the same id) when the
// part is ahead. Judging the folded experiment is the caller's (it needs the workload's metrics).
FoldOutcome fold_part(Study& study, const Study& part);

std::string_view to_string(FoldOutcome o);

// Where an experiment of a spread-out run ran, in a few words for a heat-map cell or a table:
// "GPU 1", "device 0" (a CPU worker slot), "GPU 0 on node07" (a Slurm task). Empty when the
// experiment has no placement (it ran in the study's own `kwb run`).
std::string where_it_ran(const Experiment& e);

} // namespace kwb
