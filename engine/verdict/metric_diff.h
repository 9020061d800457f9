// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <optional>
#include <string>
#include <vector>

// Why it is faster (issue 30): every recorded lane (but those retired, sampling/cupti_metrics.h)
// compared between two arms, repetition by
// repetition. A repetition's value of a lane is the mean of the lane's readings that fall inside
// it ([t_s, t_s + duration_s] on the lanes' clock); an arm's value is the mean over its judged
// repetitions with a t-based 95% CI of that mean; the difference is beyond its noise by the
// verdict's own rule: |delta%| > noise_k x max(cv%_B, cv%_T) of the repetition values. The binding
// constraint is called for each arm from its lane means (hardware/binding_classifier.h), and a
// change of constraint is stated. One owner: reports, `kwb report --format json` and the Verdict
// page all read metric_diff().
namespace kwb {

struct ArmLaneStats {
    std::size_t repetitions = 0; // judged repetitions with at least one reading of the lane
    std::optional<double> mean;
    std::optional<double> ci95_low, ci95_high; // null for fewer than 2 repetitions
    std::optional<double> cv_pct;
};

struct MetricDiffRow {
    std::string metric;
    std::string unit;
    ArmLaneStats baseline, treatment;
    std::optional<double> delta; // treatment - baseline, in the lane's unit
    std::optional<double> delta_pct; // 100 x delta / |baseline|
    std::optional<double> noise_pct; // noise_k x max(cv%_B, cv%_T)
    bool beyond_noise = false;
};

struct MetricDiff {
    std::string baseline_arm, treatment_arm;
    double noise_k = 2;
    std::vector<MetricDiffRow> rows; // in the lanes' order
    std::string baseline_binding, treatment_binding; // empty: not enough measured to call it
    std::string binding_change; // "memory-bandwidth -> compute", or empty when unchanged / not called
    std::vector<std::string> notes;
    bool empty() const { return rows.empty(); }
};

// The verdict's noise rule on two sets of repetition values, the one piece every metric diff
// shares (lanes here, the range profiler's per-launch counters in verdict/range_profile_diff.h):
// each arm's mean with its t-based 95% CI and cv%, delta and delta% of the means, and beyond
// noise when |delta%| > noise_k x max(cv%_B, cv%_T). Two arms that read the same value every
// repetition (cv 0) differ beyond noise by any nonzero delta; a zero baseline has no delta%, so
// it is never beyond noise.
ArmLaneStats repetition_stats(const std::vector<double>& values);
MetricDiffRow diff_repetitions(std::string metric, std::string unit, const std::vector<double>& baseline,
    const std::vector<double>& treatment, double noise_k);

// Null when the experiment has no lanes or its repetitions carry no timing on the lanes' clock.
std::optional<MetricDiff> metric_diff(
    const Experiment& e, const std::string& baseline_arm, const std::string& treatment_arm, double noise_k);

// The one-line statement of the diff's headline ("beyond noise: dram_pct 66.9 -> 88.1 %, ...").
std::string metric_diff_summary(const MetricDiff& d);

} // namespace kwb
