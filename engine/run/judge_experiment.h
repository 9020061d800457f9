// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/stopping.h"
#include "study/gates.h" // missing_gates moved there; kept reachable from here
#include "study/study.h"
#include "verdict/verdict.h"
#include "workloads/workload.h"

#include <string>
#include <vector>

// From an experiment's samples to its two verdicts: the sample verdict of the target metric
// (spec/verdict.md rules 1-7) and the final verdict after the study-level rules (guards,
// tradeoff gate, prediction check, split-half stability check cited). Every rule lives in engine/verdict;
// this only gathers the inputs the study holds.
namespace kwb {

// The direction of `metric`: from the workload's metric list, else from the study's target when it
// names that metric, else lower-is-better.
Direction metric_direction(const Study& study, const std::vector<MetricSpec>& metrics, const std::string& metric);

// The experiment's profile (its name plus overrides) for a direction. Throws std::invalid_argument.
Profile experiment_profile(const Experiment& experiment, Direction direction);

// Pairing applies when the two arms' judged runs match one to one, block by block (the order
// interleaves by construction; a discarded or missing run breaks it).
bool pairing_applies(const Experiment& experiment);

// The sample verdict of the target metric. Needs at least one judged run in each of two arms.
SampleVerdict judge_target(const Experiment& experiment, const Profile& profile);

// The judged, usable values of the target metric in the baseline and treatment, and whether they
// pair (what the decision stopping rule looks at; no verdict is computed).
ArmValues target_values(const Experiment& experiment);

// Whether both arms have at least one judged run of the target metric.
bool judgeable(const Experiment& experiment);

// Sets experiment.verdict, final_verdict and split_half (when plan.split_halves > 0), and writes the
// experiment's ledger entry (replacing an earlier one of the same experiment, keeping its
// hypotheses). Does nothing when the experiment is not judgeable.
void judge_experiment(Study& study, Experiment& experiment, const std::vector<MetricSpec>& metrics);

} // namespace kwb
