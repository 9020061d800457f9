// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/stopping.h"

#include "verdict/profile.h"

#include <fmt/format.h>

#include <algorithm>

namespace kwb {

Judgement judgement_of(const SampleVerdict& verdict)
{
    Judgement j{verdict.word, std::nullopt};
    const auto it = verdict.json.find("ci95_delta_pct");
    if (it != verdict.json.end() && it->is_array() && it->size() == 2 && (*it)[0].is_number() && (*it)[1].is_number())
        j.ci95_delta_pct = std::array<double, 2>{(*it)[0].get<double>(), (*it)[1].get<double>()};
    return j;
}

StoppingRule::StoppingRule(const RunPlan& plan, const Profile& profile)
    : plan_(plan), profile_(profile), strict_(rule_family(profile) == "strict")
{
}

int StoppingRule::cap_per_arm() const
{
    return plan_.stop == StopRule::Duration ? plan_.max_runs_per_arm : plan_.runs_per_arm;
}

std::optional<std::string> StoppingRule::check(int runs_per_arm, double elapsed_s, const std::function<Judgement()>& judge)
{
    const int min_n = std::max(profile_.min_n, 1);
    if (plan_.stop == StopRule::Decision && runs_per_arm >= min_n)
        if (auto reason = decide(judge))
            return reason;
    if (runs_per_arm >= cap_per_arm()) {
        switch (plan_.stop) {
        case StopRule::Count: return fmt::format("plan complete: {} runs per arm", runs_per_arm);
        case StopRule::Duration:
            return fmt::format("max count: {} runs per arm before {} s had passed", runs_per_arm, plan_.duration_s);
        case StopRule::Decision:
            return fmt::format("max count: {} runs per arm without a settled decision", runs_per_arm);
        }
    }
    if (elapsed_s >= plan_.max_seconds)
        return fmt::format("max time: {:.1f} s reached (max_seconds {}) with {} runs per arm", elapsed_s,
                           plan_.max_seconds, runs_per_arm);
    if (plan_.stop == StopRule::Duration && elapsed_s >= plan_.duration_s && runs_per_arm >= min_n)
        return fmt::format("duration: {:.1f} s passed (duration_s {}) with {} runs per arm", elapsed_s,
                           plan_.duration_s, runs_per_arm);
    return std::nullopt;
}

std::optional<std::string> StoppingRule::decide(const std::function<Judgement()>& judge)
{
    const Judgement j = judge();
    history_.push_back(j.word);
    if (static_cast<int>(history_.size()) < kDecisionStableBlocks)
        return std::nullopt;
    const auto last = history_.end() - kDecisionStableBlocks;
    if (!std::all_of(last, history_.end(), [&](const std::string& w) { return w == j.word; }))
        return std::nullopt;
    if (!strict_)
        return fmt::format("decision: the verdict stayed {} for the last {} pairs", j.word, kDecisionStableBlocks);
    // Strict: the word alone is not enough; the interval must not straddle the kill threshold.
    if (!j.ci95_delta_pct)
        return std::nullopt;
    const auto [lo, hi] = *j.ci95_delta_pct;
    if (lo < profile_.kill_pct && hi >= profile_.kill_pct)
        return std::nullopt;
    return fmt::format("decision: the verdict stayed {} for the last {} pairs and the 95% CI of delta [{:.3g}%, {:.3g}%] "
                       "clears kill {}%",
                       j.word, kDecisionStableBlocks, lo, hi, profile_.kill_pct);
}

} // namespace kwb
