// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/stopping.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {

Judgement judgement_of(const SampleVerdict& verdict)
{
    return Judgement {std::string(to_string(verdict.word)), verdict.ci95_delta_pct};
}

StoppingRule::StoppingRule(const RunPlan& plan, const Profile& profile)
    : plan_(plan)
    , criterion_(make_stopping_criterion(plan, profile))
    , first_look_(std::max(profile.min_n, 3))
{
}

int StoppingRule::first_look_per_arm() const
{
    return first_look_;
}

std::optional<std::string> StoppingRule::check(int runs_per_arm, double elapsed_s,
    const std::function<ArmValues()>& values, std::optional<double> duration_clock_s)
{
    code_.clear();
    const BlockState state {runs_per_arm, duration_clock_s.value_or(elapsed_s), &values};
    std::optional<StopDecision> stop = criterion_->early(state);
    if (!stop && runs_per_arm >= cap_per_arm())
        stop = criterion_->at_cap(state);
    if (!stop && elapsed_s >= plan_.max_seconds) // every criterion's guard: never past max_seconds
        stop = StopDecision {"max-time",
            fmt::format("max time: {:.1f} s reached (max_seconds {}) with {} runs per arm", elapsed_s,
                plan_.max_seconds, runs_per_arm)};
    if (!stop)
        stop = criterion_->reached(state);
    if (!stop)
        return std::nullopt;
    code_ = stop->code;
    return stop->reason;
}

StopRecord stop_record(const StoppingRule& rule, const RunPlan& plan, int runs_per_arm, const std::string& code)
{
    StopRecord r;
    r.rule = std::string(to_string(plan.stop));
    r.code = code;
    r.runs_per_arm = runs_per_arm;
    if (plan.stop == StopRule::Decision) {
        r.alpha = kSequentialAlpha;
        if (!rule.looks().empty()) {
            const auto& l = rule.looks().back();
            r.looks = l.look;
            r.interval = l.interval.interval;
            r.interval_level = l.interval.level;
        }
    }
    return r;
}

} // namespace kwb
