// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/continue_run.h"

#include "study/new_attempt.h"
#include "verdict/verdict_story.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace kwb {
namespace {

// Every continuation is kept in the experiment's limitations (what this run cannot claim), each
// line starting with this, so the study says it without a new field.
constexpr std::string_view kExtended = "extended after a look: ";
constexpr std::string_view kContinued = "continued under the decision rule: ";

} // namespace

int runs_per_arm_now(const Experiment& e)
{
    int fewest = -1;
    for (const auto& a : e.arms) {
        const int n = static_cast<int>(std::count_if(
            e.samples.begin(), e.samples.end(), [&](const Sample& s) { return s.arm == a.name && !s.warmup; }));
        fewest = fewest < 0 ? n : std::min(fewest, n);
    }
    return std::max(fewest, 0);
}

std::optional<int> continue_target(const Experiment& e, bool* estimated)
{
    if (estimated)
        *estimated = false;
    if (!e.verdict || !e.final_verdict)
        return std::nullopt;
    const int now = runs_per_arm_now(e);
    const VerdictStory story = verdict_story(*e.final_verdict, *e.verdict);
    if (story.next.kind == NextStepKind::AddRuns && story.next.runs_per_arm && *story.next.runs_per_arm > now) {
        if (estimated)
            *estimated = true;
        return story.next.runs_per_arm;
    }
    return std::max(2 * now, now + 1);
}

std::string reopen_for_more_runs(Study& study, std::optional<int> runs_per_arm)
{
    if (study.experiments.empty())
        throw std::invalid_argument("--continue: the study has no experiment to continue");
    if (has_runnable_experiment(study))
        throw std::invalid_argument("--continue: an experiment is pending or stopped; kwb run without --continue "
                                    "resumes it");
    Experiment& e = study.experiments[static_cast<size_t>(new_attempt_source(study))];
    if (e.status != ExperimentStatus::Done)
        throw std::invalid_argument(fmt::format("--continue: experiment {} {}; only a finished one gets more runs",
            e.id, e.status == ExperimentStatus::Failed ? "failed" : "is not finished"));
    if (e.plan.stop == StopRule::Duration)
        throw std::invalid_argument(fmt::format("--continue: experiment {} stops on a duration; raise its duration "
                                                "and run a new attempt instead",
            e.id));
    const int now = runs_per_arm_now(e);
    bool estimated = false;
    const std::optional<int> target = runs_per_arm ? runs_per_arm : continue_target(e, &estimated);
    if (!target)
        throw std::invalid_argument(
            fmt::format("--continue: experiment {} has no verdict to continue from; give --runs-per-arm N", e.id));
    if (*target <= now)
        throw std::invalid_argument(fmt::format(
            "--continue: experiment {} already holds {} runs per arm; --runs-per-arm must be more", e.id, now));
    const std::string word = e.final_verdict ? std::string(to_string(e.final_verdict->word)) : std::string("no");
    if (e.plan.stop == StopRule::Count) {
        e.limitations.push_back(fmt::format("{}the count plan of {} runs per arm was continued to {} after its {} "
                                            "verdict was seen; a fixed count's error rates assume nobody looked, so "
                                            "read this verdict as exploratory (the decision rule is the one valid "
                                            "under continuation)",
            kExtended, now, *target, word));
        e.plan.runs_per_arm = *target;
    } else {
        e.limitations.push_back(fmt::format("{}continued from {} to at most {} runs per arm after a {} verdict; its "
                                            "confidence sequence holds at every look, continuation included",
            kContinued, now, *target, word));
        e.plan.runs_per_arm = std::max(e.plan.runs_per_arm, *target);
    }
    e.status = ExperimentStatus::Stopped; // resumed as a stopped run is: same order, next block
    return fmt::format("experiment {}: continuing from {} to {} runs per arm{} (same experiment, same order)", e.id,
        now, *target,
        runs_per_arm    ? ""
            : estimated ? ", the verdict's estimate"
                        : ", twice the runs (no estimate)");
}

std::vector<std::string> continuation_reasons(const Experiment& e)
{
    std::vector<std::string> out;
    for (const auto& l : e.limitations)
        if (l.starts_with(kExtended) || l.starts_with(kContinued))
            out.push_back(l);
    return out;
}

} // namespace kwb
