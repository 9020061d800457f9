// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "verdict/verdict.h"

#include <optional>
#include <string>
#include <vector>

// The rules that command arms add to an experiment (one owner: the run and verdict paths call
// these; widgets and kwb ask them).
//
// - Matched controls: every judged repetition carries a fingerprint from its adapter (model,
//   dataset, concurrency, max tokens, benchmark name and state...). A field whose values differ
//   between the arms means the arms did not run the same workload: INCONCLUSIVE, naming the field
//   and the option that declares it expected. A field the experiment declares expected to differ
//   (Experiment::expect_differ, kwb new --expect-differ) is no blocker: its values are reported.
// - Failed requests (metric failed_requests > 0 in a judged repetition): INCONCLUSIVE naming the
//   arm and count; KILL when only the treatment had failures (it broke what the baseline serves).
// - Failed repetitions: a run stops (exit 1, finished repetitions kept) once one arm has more than
//   max_failed_repetitions() failed repetitions, and fails at its end when an arm has no timed
//   repetition that succeeded.
// - A command arm without a check command is unverified: a missing gate.
namespace kwb::command {

struct ControlFinding {
    std::string word; // INCONCLUSIVE or KILL
    std::string reason;
};

std::optional<ControlFinding> command_control_finding(const Experiment& experiment);

// One sentence per declared field (Experiment::expect_differ) for the final verdict's reasons:
// the values each arm reported, or that they did not differ after all, or that no arm reported it.
std::vector<std::string> command_control_notes(const Experiment& experiment);

// Overrides the final verdict with a finding: the word, and the reason first among the reasons.
void apply_control_finding(FinalVerdict& final, const ControlFinding& finding);

// The documented limit: max(2, 20% of the plan's runs per arm) failed repetitions per arm.
int max_failed_repetitions(const RunPlan& plan);
// Set when one arm has more failed repetitions than the limit: the sentence to stop with.
std::optional<std::string> too_many_failures(const Experiment& experiment);
// Set when an arm ran timed repetitions and every one of them failed: the sentence the finished
// run fails with. Under the limit above a plan can complete with nothing to judge for that arm (2
// runs per arm, both failed); that is a failed run, not a done one.
std::optional<std::string> arm_without_success(const Experiment& experiment);

// "correctness: arm baseline is an external command without a check command (unverified)".
std::vector<std::string> command_missing_gates(const Experiment& experiment);

} // namespace kwb::command
