// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/arm_diff.h"

#include "study/study.h"

#include <algorithm>
#include <map>
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

// Appends each setting whose values differ, by name: what a command arm and a worker arm share
// (a process's cwd, environment, timeout and output cap) is compared by one rule.
class SettingsDiff {
public:
    explicit SettingsDiff(ArmDiff& diff)
        : diff_(diff)
    {
    }
    void compare(const std::string& name, const json& b, const json& t)
    {
        if (!same_setting(b, t))
            diff_.differences.push_back({name, b, t});
    }
    // An empty string is "not set" (null), so "" and an absent field read alike.
    void compare_text(const std::string& name, const std::string& b, const std::string& t)
    {
        compare(name, text(b), text(t));
    }
    // "env.NAME" for every variable either side sets, null on the side that does not.
    void compare_env(const std::map<std::string, std::string>& b, const std::map<std::string, std::string>& t)
    {
        std::set<std::string> keys;
        for (const auto* env : {&b, &t})
            for (const auto& [k, v] : *env)
                keys.insert(k);
        for (const auto& k : keys) {
            const auto x = b.find(k), y = t.find(k);
            compare("env." + k, x == b.end() ? json(nullptr) : json(x->second),
                y == t.end() ? json(nullptr) : json(y->second));
        }
    }

private:
    static json text(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
    ArmDiff& diff_;
};

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
    SettingsDiff settings(diff);
    settings.compare("adapter", baseline.adapter, treatment.adapter);
    settings.compare("adapter_options", baseline.adapter_options, treatment.adapter_options);
    settings.compare_text("check", baseline.check, treatment.check);
    settings.compare("command", baseline.cmd, treatment.cmd);
    settings.compare_text("cwd", baseline.cwd, treatment.cwd);
    settings.compare_env(baseline.env, treatment.env);
    settings.compare_text("setup", baseline.setup, treatment.setup);
    settings.compare_text("setup_each", baseline.setup_each, treatment.setup_each);
    settings.compare_text("teardown", baseline.teardown, treatment.teardown);
    settings.compare_text("teardown_each", baseline.teardown_each, treatment.teardown_each);
    settings.compare("timeout_s", baseline.timeout_s, treatment.timeout_s);
    settings.compare("max_output_mib", baseline.max_output_mib, treatment.max_output_mib);
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
    SettingsDiff settings(diff);
    settings.compare_text("cwd", baseline.cwd, treatment.cwd);
    settings.compare_env(baseline.env, treatment.env);
    settings.compare("timeout_s", baseline.timeout_s, treatment.timeout_s);
    settings.compare("max_output_mib", baseline.max_output_mib, treatment.max_output_mib);
    settings.compare("atol", baseline.atol, treatment.atol);
    settings.compare("rtol", baseline.rtol, treatment.rtol);
    std::sort(diff.differences.begin(), diff.differences.end(),
        [](const ParamDifference& a, const ParamDifference& b) { return a.name < b.name; });
    return diff;
}

void add_commit_differences(ArmDiff& diff, const Arm& baseline, const Arm& treatment)
{
    if (!baseline.git && !treatment.git)
        return;
    const GitArm none;
    const GitArm& b = baseline.git ? *baseline.git : none;
    const GitArm& t = treatment.git ? *treatment.git : none;
    SettingsDiff settings(diff);
    for (const auto& [name, field] : {std::pair {"git.repo", &GitArm::repo}, {"git.ref", &GitArm::ref},
             {"git.sha", &GitArm::sha}, {"git.diff_sha256", &GitArm::diff_sha256}, {"git.build", &GitArm::build}})
        settings.compare_text(name, b.*field, t.*field);
    for (const auto& [name, field] : {std::pair {"git.compiler", &Toolchain::compiler}, {"git.cuda", &Toolchain::cuda},
             {"git.driver", &Toolchain::driver}})
        settings.compare_text(name, b.toolchain.*field, t.toolchain.*field);
    std::sort(diff.differences.begin(), diff.differences.end(),
        [](const ParamDifference& x, const ParamDifference& y) { return x.name < y.name; });
}

ArmDiff diff_arm_pair(const Arm& baseline, const Arm& treatment, const json& defaults)
{
    ArmDiff diff;
    if (baseline.command && treatment.command)
        diff = diff_commands(*baseline.command, *treatment.command);
    else if (baseline.worker && treatment.worker)
        diff = diff_workers(*baseline.worker, baseline.params, *treatment.worker, treatment.params);
    else
        return diff_arms(baseline.params, treatment.params, defaults);
    add_commit_differences(diff, baseline, treatment);
    return diff;
}

} // namespace kwb
