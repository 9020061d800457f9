// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <string>
#include <vector>

// A new attempt (methodology: "a NULL result is knowledge"; the ledger keeps every attempt): a
// fresh copy of a finished experiment, same arms, plan, profile and controls, without samples or
// verdicts, under a new id ("ab-2"). The finished one stays as it was. What Run does in the window
// on a finished study and `kwb run STUDY --new-attempt` does from the command line.
namespace kwb {

// What `kwb run` runs: pending, stopped, and "running" ones (a run that crashed); done and
// failed experiments are left alone.
bool is_runnable(const Experiment& experiment);
bool has_runnable_experiment(const Study& study);

// The experiment a new attempt copies: the last one holding samples, else the last one; -1 when
// the study has none.
// A pending copy of an experiment: everything a run writes goes (samples, lanes, verdicts, device,
// calibrated launches, checks), everything the engineer planned stays. Its id is left as it was.
Experiment fresh_attempt(const Experiment& finished);

int new_attempt_source(const Study& study);

// Appends a new attempt of experiments[index] and returns the ids it added. A grid cell is
// attempted with its whole grid: a new grid group ("grid-2") with a fresh copy of every cell.
// Throws std::out_of_range for a bad index.
std::vector<std::string> append_new_attempt(Study& study, int index);

// Run on a finished study: when nothing is left to run and an experiment exists, appends a new
// attempt of new_attempt_source() and returns its ids; otherwise changes nothing and returns {}.
std::vector<std::string> new_attempt_if_finished(Study& study);

} // namespace kwb
