// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <string>
#include <vector>

// The documented range of every plan number (docs/study-format.md, "Plan limits"). One owner:
// `kwb new`, the study loader and the window all ask plan_problems(), so a plan one of them
// accepts the others accept too.
//
// Why bounds at all: a plan is a promise of work. 2,147,483,647 warm-up rounds or 100,000 A/A
// splits are typos, not studies, and each would run for days while looking busy. The bounds are
// far beyond any real study (a million runs per arm of a 10 ms repetition is 5.5 hours).
namespace kwb {

// New plans are whole ABBA blocks: a pair of blocks (A B | B A) gives each arm two runs and
// cancels a linear drift exactly, so runs per arm are even. 6 = three such pairs (spec/cli.md).
inline constexpr int kDefaultRunsPerArm = 6;

// Runs per arm rounded up to whole ABBA block pairs (an odd count gets one run more).
int whole_abba_runs(int runs_per_arm);

struct PlanLimit {
    const char* field; // the plan's JSON field
    double min;
    double max;
    const char* why; // shown with the range
};

inline constexpr PlanLimit kPlanLimits[] = {
    {"runs_per_arm", 1, 1'000'000, "runs per arm"},
    {"warmup_runs", 0, 10'000, "warm-up rounds"},
    {"max_runs_per_arm", 1, 1'000'000, "runs per arm"},
    {"split_halves", 0, 1'000, "split-half stability check splits"},
    {"duration_s", 0, 604'800, "seconds (a week)"},
    {"max_seconds", 0.001, 604'800, "seconds (a week)"},
    {"min_rep_ms", 0, 60'000, "milliseconds per repetition"},
};

struct PlanProblem {
    std::string field; // e.g. "warmup_runs"
    std::string problem; // e.g. "2147483647 is outside 0 to 10000 (warm-up rounds)"
};

// The plan's numbers outside their ranges, in kPlanLimits order; empty when the plan is valid.
std::vector<PlanProblem> plan_problems(const RunPlan& plan);

// The limit of one field, or nullptr for a field without one.
const PlanLimit* plan_limit(std::string_view field);

// "must be between 0 and 10000 (warm-up rounds)": the rule as a sentence, for errors and tooltips.
std::string plan_rule(const PlanLimit& limit);

} // namespace kwb
