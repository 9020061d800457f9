// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/plan_limits.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb {

int whole_abba_runs(int runs_per_arm)
{
    return runs_per_arm % 2 == 0 || runs_per_arm >= kPlanLimits[0].max ? runs_per_arm : runs_per_arm + 1;
}

const PlanLimit* plan_limit(std::string_view field)
{
    for (const auto& l : kPlanLimits)
        if (field == l.field)
            return &l;
    return nullptr;
}

std::string plan_rule(const PlanLimit& limit)
{
    return fmt::format("must be between {} and {} ({})", limit.min, limit.max, limit.why);
}

std::vector<PlanProblem> plan_problems(const RunPlan& plan)
{
    const std::pair<const char*, double> values[] = {
        {"runs_per_arm", plan.runs_per_arm},
        {"warmup_runs", plan.warmup_runs},
        {"max_runs_per_arm", plan.max_runs_per_arm},
        {"split_halves", plan.split_halves},
        {"duration_s", plan.duration_s},
        {"max_seconds", plan.max_seconds},
        {"min_rep_ms", plan.min_rep_ms},
    };
    std::vector<PlanProblem> problems;
    for (const auto& [field, value] : values) {
        const PlanLimit* limit = plan_limit(field);
        if (!std::isfinite(value) || value < limit->min || value > limit->max)
            problems.push_back({field, fmt::format("{} {}", value, plan_rule(*limit))});
    }
    return problems;
}

} // namespace kwb
