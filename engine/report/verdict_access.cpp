// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/verdict_access.h"

namespace kwb::report {
namespace {

std::optional<double> opt_number(const nlohmann::json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key) || !j.at(key).is_number())
        return std::nullopt;
    return j.at(key).get<double>();
}

std::vector<std::string> strings(const nlohmann::json& j, const char* key)
{
    std::vector<std::string> out;
    if (j.is_object() && j.contains(key) && j.at(key).is_array())
        for (const auto& s : j.at(key))
            if (s.is_string())
                out.push_back(s.get<std::string>());
    return out;
}

std::string text(const nlohmann::json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

bool flag(const nlohmann::json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j.at(key).is_boolean() && j.at(key).get<bool>();
}

std::optional<stats::Interval> interval(const nlohmann::json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key))
        return std::nullopt;
    const auto& a = j.at(key);
    if (!a.is_array() || a.size() != 2 || !a[0].is_number() || !a[1].is_number())
        return std::nullopt;
    return stats::Interval {a[0].get<double>(), a[1].get<double>()};
}

StoredVerdict common(const nlohmann::json& j)
{
    StoredVerdict v;
    if (!j.is_object() || !j.contains("verdict") || !j.at("verdict").is_string())
        return v;
    v.present = true;
    v.word = j.at("verdict").get<std::string>();
    v.reasons = strings(j, "reasons");
    v.profile = j.contains("profile") ? j.at("profile") : nlohmann::json();
    return v;
}

} // namespace

StoredVerdict sample_verdict_of(const Experiment& e)
{
    StoredVerdict v = common(e.verdict);
    if (!v.present)
        return v;
    if (auto r = opt_number(e.verdict, "rule"))
        v.rule = static_cast<int>(*r);
    v.runs_needed_per_arm = opt_number(e.verdict, "runs_needed_per_arm");
    v.runs_needed_threshold_pct = opt_number(e.verdict, "runs_needed_threshold_pct");
    return v;
}

StoredVerdict final_verdict_of(const Experiment& e)
{
    const auto& j = e.final_verdict;
    StoredVerdict v = common(j);
    if (!v.present)
        return v;
    v.sample_word = text(j, "sample_verdict");
    v.flags = strings(j, "flags");
    v.predicted_delta_pct = opt_number(j, "predicted_delta_pct");
    v.measured_delta_pct = opt_number(j, "measured_delta_pct");
    if (j.contains("tradeoff_named") && j.at("tradeoff_named").is_boolean())
        v.tradeoff_named = j.at("tradeoff_named").get<bool>();
    if (j.contains("guards") && j.at("guards").is_array())
        for (const auto& g : j.at("guards")) {
            StoredGuard s;
            s.metric = text(g, "metric");
            s.verdict = text(g, "verdict");
            s.assessed = flag(g, "assessed");
            s.regressed = flag(g, "regressed");
            s.delta_pct = opt_number(g, "delta_pct");
            s.sigma_pct = opt_number(g, "sigma_pct");
            s.ci95_delta_pct = interval(g, "ci95_delta_pct");
            s.reasons = strings(g, "reasons");
            v.guards.push_back(std::move(s));
        }
    return v;
}

bool judged_paired(const Experiment& e)
{
    return e.verdict.is_object() && e.verdict.contains("paired") && e.verdict.at("paired").is_object();
}

} // namespace kwb::report
