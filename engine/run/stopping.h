// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/sequential_ci.h"
#include "study/study.h"
#include "verdict/verdict.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// When an experiment has run enough. Checked only at block boundaries, so the arms always hold
// the same number of runs when a rule stops them (a signal may still stop mid-block).
//
// - count:    exactly runs_per_arm runs per arm.
// - duration: once duration_s seconds have passed on the experiment's duration clock (from its
//             first timed repetition, continued across resumes: Experiment::timed_elapsed_s) and
//             every arm has min_n runs;
//             at most max_runs_per_arm per arm. Runs of a set duration, not only counts, are how
//             sustained-load behaviour shows (methodology, anti-patterns).
// - decision: a confidence sequence for delta% (run/sequential_ci.h, docs/stopping.md): from
//             max(min_n, 3) runs per arm on, one look per block; stop early only when the interval
//             lies wholly at or beyond the license line, wholly below the kill line, or wholly
//             inside the noise band (+- noise_k x sigma%); otherwise run to runs_per_arm. The rule
//             decides only WHEN to stop: the verdict word always comes from the spec's rules at
//             the n where it stopped. With probability >= 1 - kSequentialAlpha no early stop rests
//             on an interval that misses the true delta%, so early stopping adds at most
//             kSequentialAlpha to the rate of any wrong LICENSE compared with running to the cap.
// - every rule: never past max_seconds of this session.
namespace kwb {

struct Judgement {
    std::string word; // LICENSE, KILL, NOISE, INCONCLUSIVE
    std::optional<std::array<double, 2>> ci95_delta_pct;
};

// The word and CI of a sample verdict.
Judgement judgement_of(const SampleVerdict& verdict);

// What the decision rule looks at: the judged values of the target metric so far.
struct ArmValues {
    std::vector<double> baseline;
    std::vector<double> treatment;
    bool paired = false;
};

// The decision rule's last look, for the study's record (Experiment::stopping).
struct DecisionLook {
    int look = 0; // 1-based
    int runs_per_arm = 0;
    SequentialInterval interval;
    std::optional<double> sigma_pct; // max cv% of the arms at that look
};

// Where a run stands at a block boundary, for a stopping criterion.
struct BlockState {
    int runs_per_arm = 0; // the fewest runs of the order any arm has finished (all sessions)
    double timed_s = 0; // the experiment's duration clock (the duration rule)
    const std::function<ArmValues()>* values = nullptr; // the judged values so far (the decision rule)
};

// Why a run stops: a short code (plan-complete, max-count, max-time, duration, beyond-license,
// below-kill, inside-noise-band) and a sentence for the study's stop_reason.
struct StopDecision {
    std::string code;
    std::string reason;
};

// One rule of when an experiment has run enough (as nvbench's stopping criteria: the plan names
// one, the runner asks it at each block boundary and never re-implements it). A criterion answers
// three questions, asked in this order around the session's time guard (max_seconds), which is
// every criterion's:
//   early():   stop before the cap on what the runs show (the decision rule); nullopt: go on;
//   at_cap():  the sentence for reaching cap_per_arm();
//   reached(): the criterion's own goal besides the cap (the duration rule's seconds).
class StoppingCriterion {
public:
    virtual ~StoppingCriterion() = default;
    virtual std::string_view name() const = 0; // "count", "duration", "decision"
    // The most runs per arm this criterion will ever ask for.
    virtual int cap_per_arm() const = 0;
    virtual std::optional<StopDecision> early(const BlockState&) { return std::nullopt; }
    virtual StopDecision at_cap(const BlockState& state) const = 0;
    virtual std::optional<StopDecision> reached(const BlockState&) const { return std::nullopt; }
    // The decision rule's looks so far (tests, reports); empty for the others.
    virtual const std::vector<DecisionLook>& looks() const;
};

// The criterion a plan names (RunPlan::stop) with the profile's thresholds.
std::unique_ptr<StoppingCriterion> make_stopping_criterion(const RunPlan& plan, const Profile& profile);

// The plan's criterion behind the session's time guard: what the runner asks.
class StoppingRule {
public:
    StoppingRule(const RunPlan& plan, const Profile& profile);

    // The most runs per arm this rule will ever ask for.
    int cap_per_arm() const { return criterion_->cap_per_arm(); }
    // Runs per arm to announce as planned: the count, the decision cap, or for duration the cap.
    int planned_per_arm() const { return cap_per_arm(); }
    // Runs per arm from which the decision rule looks: max(min_n, 3).
    int first_look_per_arm() const;

    // At a block boundary: `runs_per_arm` is the fewest runs of the order any arm has finished
    // (all sessions; a discarded run counts, it is not repeated), `elapsed_s` the seconds of this
    // session (max_seconds), `duration_clock_s` the experiment's duration clock (the duration rule;
    // nullopt: elapsed_s). `values` is called only by the decision rule, and only from
    // first_look_per_arm() on. Returns why to stop, or nullopt to run a block more.
    std::optional<std::string> check(int runs_per_arm, double elapsed_s, const std::function<ArmValues()>& values,
        std::optional<double> duration_clock_s = std::nullopt);

    // Why the last check() stopped, as a short code (StopDecision::code). Empty when it did not stop.
    const std::string& stop_code() const { return code_; }
    const std::vector<DecisionLook>& looks() const { return criterion_->looks(); }
    const StoppingCriterion& criterion() const { return *criterion_; }

private:
    RunPlan plan_;
    std::unique_ptr<StoppingCriterion> criterion_;
    int first_look_ = 3;
    std::string code_;
};

// The record of why and when a run stopped, for Experiment::stopping.
StopRecord stop_record(const StoppingRule& rule, const RunPlan& plan, int runs_per_arm, const std::string& code);

} // namespace kwb
