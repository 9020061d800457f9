// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/metric_diff.h"

#include "hardware/binding_classifier.h"
#include "sampling/cupti_metrics.h"
#include "stats/descriptive.h"
#include "study/lane_range.h"
#include "study/lane_window.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace kwb {
namespace {

struct Window {
    double begin, end;
};

// The judged repetitions of an arm, as windows on the lanes' clock.
std::vector<Window> windows_of(const Experiment& e, const std::string& arm)
{
    std::vector<Window> w;
    for (const Sample& s : e.samples)
        if (s.arm == arm && !s.warmup && !s.discarded && !s.failed && s.t_s && s.duration_s > 0)
            w.push_back({*s.t_s, *s.t_s + s.duration_s});
    return w;
}

// The mean of the lane's readings inside each window (windows without a reading are left out).
std::vector<double> repetition_means(const SamplerLane& lane, const std::vector<Window>& windows)
{
    std::vector<double> out;
    for (const Window& w : windows) {
        const LaneSpan span = readings_within(lane, w.begin, w.end);
        double sum = 0;
        std::size_t n = 0;
        for (std::size_t i = span.begin; i < span.end; ++i) {
            // The range rule of every lane (study/lane_range.h): a reading a report would not draw
            // (a study recorded before the rule may hold them) does not count here either.
            const auto r = check_lane_reading(lane.unit, lane.values[i]);
            if (r.keep)
                sum += r.value, ++n;
        }
        if (n)
            out.push_back(sum / static_cast<double>(n));
    }
    return out;
}

std::string binding_from(const std::map<std::string, double>& means)
{
    BindingEvidenceInput in;
    const auto put = [&](std::optional<double>& field, const char* lane) {
        if (const auto it = means.find(lane); it != means.end())
            field = it->second;
    };
    put(in.tensor_pct, "tensor_pct");
    put(in.fma_pct, "fma_pct");
    put(in.dram_pct, "dram_pct");
    put(in.sm_pct, "sm_pct");
    put(in.occupancy_pct, "occupancy");
    put(in.sm_active_pct, "sm_active_pct");
    return classify_binding(in).constraint;
}

} // namespace

ArmLaneStats repetition_stats(const std::vector<double>& v)
{
    ArmLaneStats s;
    s.repetitions = v.size();
    if (v.empty())
        return s;
    s.mean = stats::mean(v);
    if (const auto sd = stats::sample_stddev(v)) {
        const double n = static_cast<double>(v.size());
        const double t = boost::math::quantile(boost::math::students_t(n - 1), 0.975);
        s.ci95_low = *s.mean - t * *sd / std::sqrt(n);
        s.ci95_high = *s.mean + t * *sd / std::sqrt(n);
        if (*s.mean != 0)
            s.cv_pct = 100 * *sd / std::fabs(*s.mean);
    }
    return s;
}

MetricDiffRow diff_repetitions(std::string metric, std::string unit, const std::vector<double>& baseline,
    const std::vector<double>& treatment, double noise_k)
{
    MetricDiffRow row {
        std::move(metric), std::move(unit), repetition_stats(baseline), repetition_stats(treatment), {}, {}, {}, false};
    if (!row.baseline.mean || !row.treatment.mean)
        return row;
    row.delta = *row.treatment.mean - *row.baseline.mean;
    if (*row.baseline.mean != 0)
        row.delta_pct = 100 * *row.delta / std::fabs(*row.baseline.mean);
    if (row.baseline.cv_pct && row.treatment.cv_pct)
        row.noise_pct = noise_k * std::max(*row.baseline.cv_pct, *row.treatment.cv_pct);
    row.beyond_noise = row.delta_pct && row.noise_pct && std::fabs(*row.delta_pct) > *row.noise_pct;
    return row;
}

std::optional<MetricDiff> metric_diff(
    const Experiment& e, const std::string& baseline_arm, const std::string& treatment_arm, double noise_k)
{
    if (e.lanes.empty())
        return std::nullopt;
    const auto wb = windows_of(e, baseline_arm);
    const auto wt = windows_of(e, treatment_arm);
    if (wb.empty() || wt.empty())
        return std::nullopt;
    MetricDiff d;
    d.baseline_arm = baseline_arm;
    d.treatment_arm = treatment_arm;
    d.noise_k = noise_k;
    std::map<std::string, double> mean_b, mean_t;
    std::vector<std::string> too_slow;
    for (const SamplerLane& lane : e.lanes) {
        // A lane retired for disagreeing with ncu (cupti_metrics.h) is not evidence, even in a
        // study recorded while it was collected.
        if (!lane_in_time_order(lane) || !cupti_retired_reason(lane.name).empty())
            continue;
        MetricDiffRow row
            = diff_repetitions(lane.name, lane.unit, repetition_means(lane, wb), repetition_means(lane, wt), noise_k);
        if (!row.baseline.mean && !row.treatment.mean)
            continue;
        // A lane read more slowly than the repetitions last (NVML and /proc at their own periods
        // beside 10 ms repetitions) has no per-repetition value to compare: named once, not a row.
        if (row.baseline.repetitions < 2 || row.treatment.repetitions < 2) {
            too_slow.push_back(lane.name);
            continue;
        }
        mean_b[lane.name] = *row.baseline.mean;
        mean_t[lane.name] = *row.treatment.mean;
        if (row.baseline.repetitions < wb.size() || row.treatment.repetitions < wt.size())
            d.notes.push_back(fmt::format("{}: readings in {} of {} baseline and {} of {} treatment repetitions",
                lane.name, row.baseline.repetitions, wb.size(), row.treatment.repetitions, wt.size()));
        d.rows.push_back(std::move(row));
    }
    if (!too_slow.empty())
        d.notes.push_back(fmt::format("not compared, read too rarely for a value per repetition (fewer than 2 "
                                      "repetitions of an arm hold a reading): {}",
            fmt::join(too_slow, ", ")));
    if (d.rows.empty())
        return std::nullopt;
    d.baseline_binding = binding_from(mean_b);
    d.treatment_binding = binding_from(mean_t);
    if (!d.baseline_binding.empty() && !d.treatment_binding.empty() && d.baseline_binding != d.treatment_binding)
        d.binding_change = d.baseline_binding + " -> " + d.treatment_binding;
    return d;
}

std::string metric_diff_summary(const MetricDiff& d)
{
    std::vector<std::string> moved;
    for (const auto& r : d.rows)
        if (r.beyond_noise)
            // A percentage lane moves in points: +14.4 points reads right where +17414% of a
            // near-idle baseline does not.
            moved.push_back(is_percentage_unit(r.unit)
                    ? fmt::format("{} {:.4g} -> {:.4g} % ({:+.2f} points)", r.metric, *r.baseline.mean,
                        *r.treatment.mean, *r.delta)
                    : fmt::format("{} {:.4g} -> {:.4g}{}{} ({:+.1f}%)", r.metric, *r.baseline.mean, *r.treatment.mean,
                        r.unit.empty() ? "" : " ", r.unit, *r.delta_pct));
    std::string s = moved.empty() ? std::string("no lane moved beyond its noise")
                                  : fmt::format("beyond noise: {}", fmt::join(moved, ", "));
    if (!d.binding_change.empty())
        s += fmt::format("; binding constraint {}", d.binding_change);
    else if (!d.baseline_binding.empty() && d.baseline_binding == d.treatment_binding)
        s += fmt::format("; both arms {}", d.baseline_binding);
    return s;
}

} // namespace kwb
