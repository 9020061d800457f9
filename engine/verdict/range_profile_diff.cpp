// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/range_profile_diff.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {
namespace {

std::string unit_of(const std::string& key)
{
    for (const auto& s : range_metrics())
        if (s.key == key)
            return s.unit;
    return {};
}

void add_rows(RangeProfileDiff& d, const std::string& scope, const RangeProfileArm& b, const RangeProfileArm& t,
    const std::string& kernel)
{
    const auto vb = per_launch_values(b, kernel);
    const auto vt = per_launch_values(t, kernel);
    for (const auto& spec : range_metrics()) {
        const auto ib = vb.find(spec.key), it = vt.find(spec.key);
        if (ib == vb.end() && it == vt.end())
            continue;
        static const std::vector<double> none;
        d.rows.push_back({scope,
            diff_repetitions(spec.key, spec.unit, ib == vb.end() ? none : ib->second,
                it == vt.end() ? none : it->second, d.noise_k)});
    }
}

nlohmann::json optional_json(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json stats_json(const ArmLaneStats& s, const std::string& unit)
{
    return {{"mean", optional_json(s.mean)}, {"n", s.repetitions}, {"ci95_low", optional_json(s.ci95_low)},
        {"ci95_high", optional_json(s.ci95_high)}, {"cv_pct", optional_json(s.cv_pct)}, {"unit", unit}};
}

nlohmann::json stats_map_json(const std::map<std::string, ArmLaneStats>& m)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, s] : m)
        j[key] = stats_json(s, unit_of(key));
    return j;
}

} // namespace

RangeProfileDiff range_profile_diff(const RangeProfileArm& baseline, const RangeProfileArm& treatment, double noise_k)
{
    RangeProfileDiff d;
    d.baseline_arm = baseline.arm;
    d.treatment_arm = treatment.arm;
    d.noise_k = noise_k;
    for (const RangeProfileArm* a : {&baseline, &treatment})
        if (!a->unavailable.empty())
            d.notes.push_back(fmt::format("cannot be had for arm {}: {}", a->arm, a->unavailable));
        else if (a->launches.empty())
            d.notes.push_back(fmt::format("arm {}: the range profiler measured no launch", a->arm));
    if (!d.notes.empty())
        return d;
    add_rows(d, kWholeLaunch, baseline, treatment, {});
    const auto several = [](const RangeProfileArm& a) {
        return std::any_of(a.launches.begin(), a.launches.end(), [](const auto& l) { return l.size() > 1; });
    };
    if (several(baseline) || several(treatment)) {
        const auto names_t = kernel_names(treatment);
        for (const auto& name : kernel_names(baseline))
            if (std::find(names_t.begin(), names_t.end(), name) != names_t.end())
                add_rows(d, name, baseline, treatment, name);
    }
    for (const auto& r : d.rows)
        if (r.row.baseline.repetitions < 2 || r.row.treatment.repetitions < 2) {
            d.notes.push_back("fewer than 2 launches of an arm: no spread, so no row is beyond its noise");
            break;
        }
    return d;
}

nlohmann::json range_profile_json(const std::vector<RangeProfileArm>& arms, const std::vector<RangeProfileDiff>& diffs)
{
    nlohmann::json j_arms = nlohmann::json::array();
    for (const auto& a : arms) {
        nlohmann::json arm {{"arm", a.arm}, {"launches", a.launches.size()}, {"passes", a.passes}, {"notes", a.notes}};
        if (!a.unavailable.empty())
            arm["unavailable"] = a.unavailable;
        nlohmann::json kernels = nlohmann::json::array();
        for (const auto& name : kernel_names(a))
            kernels.push_back({{"name", name}, {"metrics", stats_map_json(per_launch_stats(a, name))}});
        arm["kernels"] = kernels;
        arm["launch"] = stats_map_json(per_launch_stats(a, {}));
        j_arms.push_back(arm);
    }
    nlohmann::json j_diffs = nlohmann::json::array();
    for (const auto& d : diffs) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& [scope, r] : d.rows)
            rows.push_back({{"scope", scope}, {"metric", r.metric}, {"unit", r.unit},
                {"baseline", stats_json(r.baseline, r.unit)}, {"treatment", stats_json(r.treatment, r.unit)},
                {"delta", optional_json(r.delta)}, {"delta_pct", optional_json(r.delta_pct)},
                {"noise_pct", optional_json(r.noise_pct)}, {"beyond_noise", r.beyond_noise}});
        j_diffs.push_back({{"baseline", d.baseline_arm}, {"treatment", d.treatment_arm}, {"noise_k", d.noise_k},
            {"rows", rows}, {"notes", d.notes}});
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& s : range_metrics())
        metrics.push_back({{"key", s.key}, {"cupti", s.cupti}, {"unit", s.unit}, {"what", s.what}});
    return {{"arms", j_arms}, {"diffs", j_diffs}, {"metrics", metrics}};
}

} // namespace kwb
