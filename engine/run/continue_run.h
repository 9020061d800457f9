// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <optional>
#include <string>
#include <vector>

// Adding runs to a finished experiment (`kwb run STUDY --continue`, the window's Add runs): the
// same experiment, resumed under the same order rules (the blocks go on where they stopped), to a
// larger n per arm. What that does to the verdict's guarantees depends on the stopping rule:
// the decision rule's confidence sequence is valid under continuation (docs/stopping.md); a fixed
// count is not, so the extension is recorded and the final verdict's reasons say the run was
// extended after a look (docs/verdict.md, "The next step").
namespace kwb {

// The runs per arm the experiment holds now (the fewest over its arms, warm-ups excluded).
int runs_per_arm_now(const Experiment& experiment);

// The n per arm Add runs continues to: the verdict story's estimate when its next step is more
// runs, else twice the runs it holds (the window offers it, saying the engine gave no estimate).
// Null for an experiment without a verdict.
std::optional<int> continue_target(const Experiment& experiment, bool* estimated = nullptr);

// Reopens the study's last finished experiment (new_attempt_source) for `runs_per_arm` per arm,
// or continue_target's when null. Returns the notice `kwb run` prints. Throws
// std::invalid_argument saying why it cannot: an experiment pending or stopped (plain kwb run
// resumes it), a failed one, a duration plan, a count not above the runs it holds.
std::string reopen_for_more_runs(Study& study, std::optional<int> runs_per_arm);

// What the final verdict's reasons say about the continuations an experiment went through (one
// line each, from its limitations); empty for one never continued.
std::vector<std::string> continuation_reasons(const Experiment& experiment);

} // namespace kwb
