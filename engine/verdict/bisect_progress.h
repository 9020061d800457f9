// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/bisect.h"

#include <string>
#include <vector>

// Where a `kwb bisect` stands, from the steps its study holds (verdict/bisect.h's bisect_path): the
// window's bisect path. Each step narrows the search, so the newest step called good is the range's
// lower end and the newest called bad its upper end. How many commits are left between them comes
// from the newest step's own record (Experiment::bisect, written by kwb bisect after each call), or,
// when the caller knows the commits (`commits`: good's descendants up to bad, oldest first, as
// git::commits_between gives them), from those; a study without either says the steps alone.
namespace kwb {

struct BisectProgress {
    std::vector<BisectPathRow> steps; // of the newest search (the good commit of the last step)
    std::string good_sha; // the commit every step ran against; empty: no steps
    std::string range_low; // the newest candidate called good, else good_sha
    std::string range_high; // the newest candidate called bad; empty: no step called one bad
    // The search ended without an answer: the newest candidate was INCONCLUSIVE twice (run again
    // once, as kwb bisect does); the range above is what is left.
    bool stopped_inconclusive = false;
    // The commits left strictly between the ends (the upper end: bad when no step found one), and
    // the first bad commit once none is left. -1 / empty when neither a record nor `commits` says.
    int commits_left = -1;
    std::string first_bad;
    // From the newest step's record: the search's bad commit and its commits when it began ("", -1).
    std::string bad_sha;
    int commits_in_range = -1;
};

BisectProgress bisect_progress(const Study& study, const std::vector<std::string>& commits = {});

} // namespace kwb
