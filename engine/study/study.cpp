// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study.h"

#include <algorithm>

namespace kwb {

Experiment* Study::find_experiment(const std::string& id)
{
    auto it = std::find_if(experiments.begin(), experiments.end(), [&](const Experiment& e) { return e.id == id; });
    return it == experiments.end() ? nullptr : &*it;
}

const Experiment* Study::find_experiment(const std::string& id) const
{
    return const_cast<Study*>(this)->find_experiment(id);
}

const std::vector<std::string>& tradeoff_axes()
{
    static const std::vector<std::string> axes = {
        "loc-complexity",
        "hardware-specificity",
        "toolchain-version",
        "maintainability",
        "numerical-correctness",
        "generality",
        "scheduling-impact",
        "memory-budget",
    };
    return axes;
}

std::string_view to_string(RunOrder o)
{
    return o == RunOrder::Abba ? "abba" : "randomised-blocks";
}

std::string_view to_string(StopRule s)
{
    switch (s) {
    case StopRule::Count:
        return "count";
    case StopRule::Duration:
        return "duration";
    case StopRule::Decision:
        return "decision";
    }
    return "count";
}

std::string_view to_string(ExperimentStatus s)
{
    switch (s) {
    case ExperimentStatus::Pending:
        return "pending";
    case ExperimentStatus::Running:
        return "running";
    case ExperimentStatus::Done:
        return "done";
    case ExperimentStatus::Stopped:
        return "stopped";
    case ExperimentStatus::Failed:
        return "failed";
    }
    return "pending";
}

std::vector<const Sample*> judged_samples(const Experiment& e, const std::string& arm, const std::string& metric)
{
    std::vector<const Sample*> picked;
    for (const auto& s : e.samples)
        if (s.arm == arm && !s.warmup && !s.discarded && s.metrics.count(metric))
            picked.push_back(&s);
    std::stable_sort(picked.begin(), picked.end(), [](auto* a, auto* b) { return a->position < b->position; });
    return picked;
}

std::vector<double> judged_values(const Experiment& e, const std::string& arm, const std::string& metric)
{
    const auto picked = judged_samples(e, arm, metric);
    std::vector<double> values;
    values.reserve(picked.size());
    for (const auto* s : picked)
        values.push_back(s->metrics.at(metric));
    return values;
}

} // namespace kwb
