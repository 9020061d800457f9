// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/param_helpers.h"

namespace kwb {

const WorkloadDescription& synthetic_description()
{
    static const WorkloadDescription d {
        "synthetic",
        "synthetic (no compute): each repetition draws a value from a configured distribution with a known true delta, "
        "drift, modes and outliers; for measuring the runner's statistics, never a kernel",
        {Backend::Cpu},
        []() -> std::vector<ParamSpec> {
            return {
                {"dist", "normal", {"normal", "lognormal"},
                    "noise distribution: normal or lognormal (same mean and cv)"},
                {"mean", 10.0, {1.0, 10.0, 100.0}, "the baseline's true mean value"},
                {"cv_pct", 3.0, {0.5, 1.0, 3.0, 4.5, 10.0}, "noise: coefficient of variation in percent"},
                {"delta_pct", 0.0, {0.0, 5.0, 8.0, 9.0, 20.0},
                    "the true improvement in percent (value lower by this much); arms differ only here"},
                {"drift_pct", 0.0, {0.0, 0.1, 1.0}, "linear drift in percent of the value per judged run of the order"},
                {"bimodal_share", 0.0, {0.0, 0.2, 0.33}, "share (0-1) of repetitions in a slow second mode"},
                {"bimodal_gap_pct", 0.0, {0.0, 20.0}, "how much slower the second mode is, in percent"},
                {"outlier_rate", 0.0, {0.0, 0.05},
                    "share (0-1) of repetitions that are outliers (1.5 times the value)"},
                {"seed", 1, int_values({1, 2, 3}),
                    "seed of the draws; with the arm's name and the run's position it fixes every value"},
            };
        }(),
        []() -> std::vector<MetricSpec> {
            return {{"value", "units", Direction::Lower, "the drawn value of the repetition (lower is better)"}};
        }(),
        {},
        true,
    };
    return d;
}

} // namespace kwb
