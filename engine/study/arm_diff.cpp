// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/arm_diff.h"

#include "study/study.h"

#include <algorithm>
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

ArmDiff diff_commands(const CommandSpec& baseline, const CommandSpec& treatment)
{
    ArmDiff diff;
    const auto text = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    const auto compare = [&](const char* name, const json& b, const json& t) {
        if (!same_setting(b, t))
            diff.differences.push_back({name, b, t});
    };
    compare("adapter", baseline.adapter, treatment.adapter);
    compare("adapter_options", baseline.adapter_options, treatment.adapter_options);
    compare("check", text(baseline.check), text(treatment.check));
    compare("command", baseline.cmd, treatment.cmd);
    compare("cwd", text(baseline.cwd), text(treatment.cwd));
    std::set<std::string> keys;
    for (const auto* env : {&baseline.env, &treatment.env})
        for (const auto& [k, v] : *env)
            keys.insert(k);
    for (const auto& k : keys) {
        const auto b = baseline.env.find(k), t = treatment.env.find(k);
        compare(("env." + k).c_str(), b == baseline.env.end() ? json(nullptr) : json(b->second),
            t == treatment.env.end() ? json(nullptr) : json(t->second));
    }
    compare("setup", text(baseline.setup), text(treatment.setup));
    compare("setup_each", text(baseline.setup_each), text(treatment.setup_each));
    compare("teardown", text(baseline.teardown), text(treatment.teardown));
    compare("teardown_each", text(baseline.teardown_each), text(treatment.teardown_each));
    compare("timeout_s", baseline.timeout_s, treatment.timeout_s);
    compare("max_output_mib", baseline.max_output_mib, treatment.max_output_mib);
    return diff;
}

ArmDiff diff_workers(
    const WorkerSpec& baseline, const json& baseline_params, const WorkerSpec& treatment, const json& treatment_params)
{
    ArmDiff diff;
    if (baseline.cmd == treatment.cmd)
        diff = diff_arms(baseline_params, treatment_params, baseline.description.defaults());
    else
        diff.differences.push_back({"command", baseline.cmd, treatment.cmd});
    const auto text = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    const auto compare = [&](const std::string& name, const json& b, const json& t) {
        if (!same_setting(b, t))
            diff.differences.push_back({name, b, t});
    };
    compare("cwd", text(baseline.cwd), text(treatment.cwd));
    std::set<std::string> keys;
    for (const auto* env : {&baseline.env, &treatment.env})
        for (const auto& [k, v] : *env)
            keys.insert(k);
    for (const auto& k : keys) {
        const auto b = baseline.env.find(k), t = treatment.env.find(k);
        compare("env." + k, b == baseline.env.end() ? json(nullptr) : json(b->second),
            t == treatment.env.end() ? json(nullptr) : json(t->second));
    }
    compare("timeout_s", baseline.timeout_s, treatment.timeout_s);
    compare("max_output_mib", baseline.max_output_mib, treatment.max_output_mib);
    compare("atol", baseline.atol, treatment.atol);
    compare("rtol", baseline.rtol, treatment.rtol);
    std::sort(diff.differences.begin(), diff.differences.end(),
        [](const ParamDifference& a, const ParamDifference& b) { return a.name < b.name; });
    return diff;
}

ArmDiff diff_arm_pair(const Arm& baseline, const Arm& treatment, const json& defaults)
{
    if (baseline.command && treatment.command)
        return diff_commands(*baseline.command, *treatment.command);
    if (baseline.worker && treatment.worker)
        return diff_workers(*baseline.worker, baseline.params, *treatment.worker, treatment.params);
    return diff_arms(baseline.params, treatment.params, defaults);
}

} // namespace kwb
