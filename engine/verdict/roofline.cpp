// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/roofline.h"

#include "stats/percentile.h"
#include "study/arm_roles.h"
#include "study/study.h"
#include "verdict/metric_diff.h"
#include "verdict/speed_of_light_roofs.h"
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/flops_per_byte.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

RooflineRange iqr(const std::vector<double>& v)
{
    return {stats::percentile(v, 25), stats::percentile(v, 75)};
}

RooflineArm place_arm(const SpeedOfLightArm& arm, const Roofline& r)
{
    RooflineArm out;
    out.name = arm.name;
    if (arm.reps.empty()) {
        out.reason = "no judged repetitions";
        return out;
    }
    std::vector<double> intensity, tflops;
    bool any_bytes = false, any_flops = false;
    for (const auto& rep : arm.reps) {
        any_bytes = any_bytes || rep.gbs.has_value();
        any_flops = any_flops || rep.tflops.has_value();
        if (rep.gbs && rep.tflops) {
            intensity.push_back(*rep.tflops * 1000 / *rep.gbs); // (FLOP/s) / (byte/s)
            tflops.push_back(*rep.tflops);
        }
    }
    if (intensity.empty()) {
        out.reason = !any_bytes && !any_flops
            ? "the workload declares no byte or FLOP count (no GB/s or TFLOP/s metric)"
            : !any_bytes ? "the workload declares no byte count (no GB/s metric)"
            : !any_flops ? "the workload declares no FLOP count (no TFLOP/s metric)"
                         : "no repetition has both a byte and a FLOP count";
        return out;
    }
    RooflinePoint p;
    p.intensity = stats::percentile(intensity, 50);
    p.tflops = stats::percentile(tflops, 50);
    p.intensity_iqr = iqr(intensity);
    p.tflops_iqr = iqr(tflops);
    p.n = intensity.size();
    out.point = p;
    const std::optional<double> memory
        = r.bandwidth_gbs ? std::optional<double>(r.bandwidth_gbs->value * p.intensity / 1000) : std::nullopt;
    const std::optional<double> compute
        = r.compute_tflops ? std::optional<double>(r.compute_tflops->value) : std::nullopt;
    // With one roof only, the bound is unknown: the missing roof could be the lower one.
    if (memory && compute) {
        out.bound = *memory <= *compute ? RooflineBound::Memory : RooflineBound::Compute;
        out.attainable_tflops = std::min(*memory, *compute);
        out.fraction_of_roof = p.tflops / *out.attainable_tflops;
    }
    return out;
}

// FLOPs per byte from the arm's parameters when its samples hold bytes but no FLOPs and its
// workload's parameters fix the ratio; null otherwise.
std::optional<double> derived_flops_per_byte(const Experiment& e, const std::string& arm, const SpeedOfLightArm& reps)
{
    const bool bytes_only = std::any_of(reps.reps.begin(), reps.reps.end(), [](const auto& r) { return r.gbs; })
        && std::none_of(reps.reps.begin(), reps.reps.end(), [](const auto& r) { return r.tflops; });
    const WorkloadDescription* d = find_builtin_description(e.workload);
    if (!bytes_only || !d)
        return std::nullopt;
    for (const auto& a : e.arms) {
        if (a.name != arm || !a.params.is_object())
            continue;
        nlohmann::json params = defaults_on(*d, e.backend);
        params.update(a.params);
        const auto ratio = builtin_flops_per_byte(d->name, params);
        return ratio && std::isfinite(*ratio) && *ratio > 0 ? ratio : std::nullopt;
    }
    return std::nullopt;
}

} // namespace

std::string roofline_rate_text(double gbs)
{
    return gbs >= 1000 ? fmt::format("{:.3g} TB/s", gbs / 1000) : fmt::format("{:.3g} GB/s", gbs);
}

const char* roofline_bound_name(RooflineBound b)
{
    switch (b) {
    case RooflineBound::Memory:
        return "memory";
    case RooflineBound::Compute:
        return "compute";
    case RooflineBound::Unknown:
        break;
    }
    return "unknown";
}

Roofline roofline(const SpeedOfLightInput& in)
{
    Roofline r;
    r.device = in.roofs.device;
    r.bandwidth_gbs = in.roofs.dram_gbs;
    r.l2_gbs = in.roofs.l2_gbs;
    r.compute_tflops = in.roofs.compute_tflops;
    const std::string device = r.device.empty() ? std::string("this device") : r.device;
    if (r.bandwidth_gbs && r.compute_tflops)
        r.ridge_intensity = r.compute_tflops->value * 1000 / r.bandwidth_gbs->value;
    if (!r.bandwidth_gbs)
        r.notes.push_back(fmt::format("no bandwidth roof for {} (`kwb calibrate` measures a GPU's; a CPU's is "
                                      "written by hand, docs/verdict.md): no arm's bound is called",
            device));
    if (!r.compute_tflops)
        r.notes.push_back(fmt::format(
            "no compute roof for {} (no datasheet peak in the catalogue): no arm's bound is called", device));
    for (const auto& arm : in.arms)
        r.arms.push_back(place_arm(arm, r));
    return r;
}

std::optional<Roofline> study_roofline(const Study& study, const Experiment& e)
{
    const AbArms arms = ab_arms(e);
    if (!arms.baseline || !arms.treatment)
        return std::nullopt;
    // noise_k plays no part in the means the roofline takes.
    return study_roofline(study, e, metric_diff(e, arms.baseline->name, arms.treatment->name, 2));
}

std::optional<Roofline> study_roofline(const Study& study, const Experiment& e, const std::optional<MetricDiff>& diff)
{
    const AbArms arms = ab_arms(e);
    if (!arms.baseline || !arms.treatment)
        return std::nullopt;
    SpeedOfLightInput in;
    in.roofs = device_roofs(study, e);
    std::vector<std::string> derived;
    for (const Arm* arm : {arms.baseline, arms.treatment}) {
        SpeedOfLightArm reps = speed_of_light_arm(e, arm->name);
        std::string how;
        if (const auto ratio = derived_flops_per_byte(e, arm->name, reps)) {
            for (auto& r : reps.reps)
                if (r.gbs)
                    r.tflops = *r.gbs * *ratio / 1000;
            how = fmt::format("FLOPs derived (recorded before {} declared them): {:.3g} FLOP/B from the "
                              "parameters x each repetition's GB/s",
                e.workload, *ratio);
        }
        in.arms.push_back(std::move(reps));
        derived.push_back(std::move(how));
    }
    Roofline r = roofline(in);
    for (std::size_t i = 0; i < r.arms.size(); ++i)
        r.arms[i].derived = derived[i];
    // The measured DRAM traffic, from the lanes' per-arm means.
    if (diff) {
        for (std::size_t i = 0; i < r.arms.size(); ++i) {
            double gbs = 0;
            bool read = false;
            for (const auto& row : diff->rows) {
                const ArmLaneStats& a = i == 0 ? row.baseline : row.treatment;
                if ((row.metric == "dram_read" || row.metric == "dram_write") && row.unit == "GB/s" && a.mean) {
                    gbs += *a.mean;
                    read = read || row.metric == "dram_read";
                }
            }
            RooflineArm& arm = r.arms[i];
            if (!read || gbs <= 0 || !arm.point)
                continue;
            arm.measured_dram_gbs = gbs;
            arm.measured_dram_intensity = arm.point->tflops * 1000 / gbs;
        }
    }
    return r;
}

std::string roofline_arm_line(const RooflineArm& a)
{
    if (!a.point)
        return fmt::format("{}: no point: {}", a.name, a.reason);
    const auto& p = *a.point;
    std::string line = fmt::format("{}: {:.3g} FLOP/B, {:.3g} TFLOP/s (IQR {:.3g}-{:.3g}, n = {})", a.name, p.intensity,
        p.tflops, p.tflops_iqr.lo, p.tflops_iqr.hi, p.n);
    if (a.fraction_of_roof)
        line += fmt::format(", {:.0f}% of the {} roof", *a.fraction_of_roof * 100, roofline_bound_name(a.bound));
    if (!a.derived.empty())
        line += " (FLOPs derived)";
    if (a.measured_dram_intensity)
        line += fmt::format("; on the measured DRAM traffic ({}) {:.3g} FLOP/B",
            roofline_rate_text(*a.measured_dram_gbs), *a.measured_dram_intensity);
    return line;
}

std::string roofline_roofs_line(const Roofline& r)
{
    std::vector<std::string> parts;
    if (r.bandwidth_gbs)
        parts.push_back(
            fmt::format("bandwidth {} {}", roofline_rate_text(r.bandwidth_gbs->value), r.bandwidth_gbs->what));
    if (r.l2_gbs)
        parts.push_back(fmt::format("L2 {} {}", roofline_rate_text(r.l2_gbs->value), r.l2_gbs->what));
    if (r.compute_tflops)
        parts.push_back(fmt::format("compute {:.4g} TFLOP/s {}", r.compute_tflops->value, r.compute_tflops->what));
    if (r.ridge_intensity)
        parts.push_back(fmt::format("ridge {:.3g} FLOP/B", *r.ridge_intensity));
    std::string line = r.device.empty() ? std::string("roofs") : r.device;
    line += ": ";
    for (std::size_t i = 0; i < parts.size(); ++i)
        line += (i ? ", " : "") + parts[i];
    if (parts.empty())
        line += "no roofs";
    return line;
}

} // namespace kwb
