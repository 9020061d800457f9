// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/target_check.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

std::optional<double> arm_mean(const nlohmann::json& verdict, const std::string& arm)
{
    if (!verdict.is_object() || !verdict.contains("arms") || !verdict["arms"].contains(arm))
        return std::nullopt;
    const auto& mean = verdict["arms"][arm].value("mean", nlohmann::json());
    return mean.is_number() ? std::optional<double>(mean.get<double>()) : std::nullopt;
}

bool better_or_equal(Direction d, double value, double goal)
{
    return d == Direction::Lower ? value <= goal : value >= goal;
}

} // namespace

std::optional<TargetCheck> check_target(const Target& t, const Experiment& e)
{
    if (e.arms.size() < 2 || t.metric.empty() || e.metric != t.metric)
        return std::nullopt;
    const auto base = arm_mean(e.verdict, "baseline");
    if (!base)
        return std::nullopt;
    TargetCheck c;
    c.measured_baseline = *base;
    c.measured_treatment = arm_mean(e.verdict, "treatment");
    const std::string unit = t.unit.empty() ? "" : " " + t.unit;
    const auto v = [&](double x) { return fmt::format("{:.4g}{}", x, unit); };
    if (t.current && *t.current != 0) {
        const double off = 100.0 * (*base - *t.current) / *t.current;
        c.baseline_off_pct = off;
        if (std::fabs(off) > kTargetBaselineTolerancePct)
            c.comments.push_back(fmt::format(
                "The measured baseline is {} against a stated current value of {} ({:+.0f}%): the target was not "
                "measured on this workload and device. Restate \"from X to Y\" from the measurement before "
                "judging the goal.",
                v(*base), v(*t.current), off));
        else
            c.comments.push_back(fmt::format("The measured baseline {} matches the stated current value {} "
                                             "(within {:.0f}%).",
                v(*base), v(*t.current), kTargetBaselineTolerancePct));
    }
    if (t.goal && c.measured_treatment) {
        c.goal_reached = better_or_equal(t.direction, *c.measured_treatment, *t.goal);
        c.comments.push_back(fmt::format("The treatment measured {}: the goal of {} is {}.", v(*c.measured_treatment),
            v(*t.goal), c.goal_reached ? "reached" : "not reached"));
    }
    return c;
}

} // namespace kwb
