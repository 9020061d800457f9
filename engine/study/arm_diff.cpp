// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/arm_diff.h"

#include <set>

namespace kwb {
namespace {

using nlohmann::json;

json effective(const json& arm, const json& defaults, const std::string& name)
{
    if (arm.is_object() && arm.contains(name))
        return arm.at(name);
    if (defaults.is_object() && defaults.contains(name))
        return defaults.at(name);
    return nullptr;
}

bool same_setting(const json& a, const json& b)
{
    // nlohmann compares 128 (integer) and 128.0 (float) as different types; a setting is a value.
    if (a.is_number() && b.is_number())
        return a.get<double>() == b.get<double>();
    return a == b;
}

} // namespace

std::string ArmDiff::names() const
{
    std::string out;
    for (const auto& d : differences)
        out += (out.empty() ? "" : ", ") + d.name;
    return out;
}

ArmDiff diff_arms(const json& baseline, const json& treatment, const json& defaults)
{
    std::set<std::string> names;
    for (const json* j : {&baseline, &treatment, &defaults})
        if (j->is_object())
            for (const auto& [name, value] : j->items())
                names.insert(name);
    ArmDiff diff;
    for (const auto& name : names) {
        const json b = effective(baseline, defaults, name);
        const json t = effective(treatment, defaults, name);
        if (!same_setting(b, t)) {
            diff.differences.push_back({name, b, t});
            continue;
        }
        const bool in_b = baseline.is_object() && baseline.contains(name);
        const bool in_t = treatment.is_object() && treatment.contains(name);
        if (in_b != in_t)
            diff.one_sided.push_back(name);
    }
    return diff;
}

} // namespace kwb
