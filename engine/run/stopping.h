// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "verdict/verdict.h"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

// When an experiment has run enough. Checked only at block boundaries, so the arms always hold
// the same number of runs when a rule stops them (a signal may still stop mid-block).
//
// - count:    exactly runs_per_arm runs per arm.
// - duration: once duration_s seconds of this session have passed and every arm has min_n runs;
//             at most max_runs_per_arm per arm. Runs of a set duration, not only counts, are how
//             sustained-load behaviour shows (methodology, anti-patterns).
// - decision: from min_n runs per arm on, the sample verdict is taken after every block; stop once
//             it has been the same word for the last 3 blocks (pairs) and, under the strict profile,
//             the 95% CI of delta% also clears the kill threshold (lies wholly on one side of it,
//             so the license/kill question is settled, not just the word); at most runs_per_arm.
// - every rule: never past max_seconds of this session.
namespace kwb {

inline constexpr int kDecisionStableBlocks = 3;

struct Judgement {
    std::string word;                                  // LICENSE, KILL, NOISE, INCONCLUSIVE
    std::optional<std::array<double, 2>> ci95_delta_pct;
};

// The word and CI of a sample verdict's JSON.
Judgement judgement_of(const SampleVerdict& verdict);

class StoppingRule {
public:
    StoppingRule(const RunPlan& plan, const Profile& profile);

    // The most runs per arm this rule will ever ask for.
    int cap_per_arm() const;
    // Runs per arm to announce as planned: the count, the decision cap, or for duration the cap.
    int planned_per_arm() const { return cap_per_arm(); }

    // At a block boundary: `runs_per_arm` is the fewest runs of the order any arm has finished
    // (all sessions; a discarded run counts, it is not repeated), `elapsed_s` the seconds of this session. `judge` is called only by the decision
    // rule, and only from min_n runs per arm on. Returns why to stop, or nullopt to run a block more.
    std::optional<std::string> check(int runs_per_arm, double elapsed_s, const std::function<Judgement()>& judge);

    // The decision rule's verdict words so far, one per judged block (tests, reports).
    const std::vector<std::string>& history() const { return history_; }

private:
    std::optional<std::string> decide(const std::function<Judgement()>& judge);

    RunPlan plan_;
    Profile profile_;
    bool strict_ = false;
    std::vector<std::string> history_;
};

} // namespace kwb
