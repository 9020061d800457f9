// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "workloads/workload.h"

#include <string>
#include <vector>

// Folding part files (study/study_parts.h) into their study, for `kwb collect` and the parent of
// `kwb run --devices`: the run session's judging after a fold (run/run_session.h). The caller holds
// the study's lock and saves when anything changed.
namespace kwb {

struct FoldReport {
    std::string id;
    std::string outcome; // folded, unchanged, behind the study, running (its run holds the part), unreadable...
    bool changed = false;
};

// Folds the parts named by `ids` (every part beside the study when empty) into `study`, then judges
// each folded experiment in the study (verdicts, ledger) and re-estimates the interaction of each
// grid a folded cell belongs to. A part whose run still holds its lock is left for later.
// `registry` gives each experiment's metrics for its judging.
std::vector<FoldReport> fold_parts(
    const WorkloadRegistry& registry, Study& study, const std::string& study_path, const std::vector<std::string>& ids);

// Whether any report says the study changed.
bool any_changed(const std::vector<FoldReport>& reports);

} // namespace kwb
