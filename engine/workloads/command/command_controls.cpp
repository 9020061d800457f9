// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/command_controls.h"

#include "study/arm_roles.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace kwb::command {
namespace {

bool judged(const Sample& s)
{
    return !s.warmup && !s.discarded && !s.failed;
}

} // namespace

std::optional<ControlFinding> command_control_finding(const Experiment& e)
{
    if (ab_arm_count(e) != 2) // an A/A arm beside the A/B is allowed; baseline and treatment are compared
        return std::nullopt;
    // Fingerprint fields: the set of values each arm saw.
    std::map<std::string, std::map<std::string, std::set<std::string>>> seen; // field -> arm -> values
    for (const auto& s : e.samples)
        if (judged(s))
            for (const auto& [field, value] : s.fingerprint)
                seen[field][s.arm].insert(value);
    for (const auto& [field, arms] : seen) {
        const auto b = arms.find(e.arms[0].name), t = arms.find(e.arms[1].name);
        const auto list = [](const std::set<std::string>& v) {
            std::string out;
            for (const auto& x : v)
                out += (out.empty() ? "" : ", ") + x;
            return out;
        };
        if (b == arms.end() || t == arms.end()) {
            const auto& has = b == arms.end() ? t : b;
            return ControlFinding {"INCONCLUSIVE",
                fmt::format("matched controls: fingerprint field '{}' is reported by arm {} only ({})", field,
                    has->first, list(has->second))};
        }
        if (b->second != t->second)
            return ControlFinding {"INCONCLUSIVE",
                fmt::format("matched controls: fingerprint field '{}' differs: {} ran {}, {} ran {}", field, b->first,
                    list(b->second), t->first, list(t->second))};
    }
    // Failed requests.
    std::map<std::string, double> failed;
    for (const auto& s : e.samples)
        if (judged(s))
            if (const auto f = s.metrics.find("failed_requests"); f != s.metrics.end() && f->second > 0)
                failed[s.arm] += f->second;
    const double fb = failed.count(e.arms[0].name) ? failed[e.arms[0].name] : 0;
    const double ft = failed.count(e.arms[1].name) ? failed[e.arms[1].name] : 0;
    if (fb > 0 || ft > 0) {
        std::string who;
        for (const auto& [arm, n] : failed)
            who += fmt::format("{}arm {} had {} failed requests", who.empty() ? "" : "; ", arm, n);
        if (fb == 0)
            return ControlFinding {"KILL", fmt::format("failed requests: only the treatment fails ({})", who)};
        return ControlFinding {"INCONCLUSIVE", fmt::format("failed requests: {}", who)};
    }
    return std::nullopt;
}

void apply_control_finding(FinalVerdict& final, const ControlFinding& f)
{
    final.word = parse_verdict_word(f.word).value_or(VerdictWord::Inconclusive);
    final.reasons.insert(final.reasons.begin(), f.reason);
}

int max_failed_repetitions(const RunPlan& plan)
{
    const int planned = plan.stop == StopRule::Duration ? plan.max_runs_per_arm : plan.runs_per_arm;
    return std::max(2, static_cast<int>(std::floor(0.2 * planned)));
}

std::optional<std::string> too_many_failures(const Experiment& e)
{
    const int limit = max_failed_repetitions(e.plan);
    for (const auto& arm : e.arms) {
        const auto n = std::count_if(
            e.samples.begin(), e.samples.end(), [&](const Sample& s) { return s.arm == arm.name && s.failed; });
        if (n > limit)
            return fmt::format("arm {} had {} failed repetitions, more than the limit of {} (max(2, 20% of {} runs per "
                               "arm)); the last: {}",
                arm.name, n, limit, e.plan.runs_per_arm,
                std::find_if(e.samples.rbegin(), e.samples.rend(), [&](const Sample& s) {
                    return s.arm == arm.name && s.failed;
                })->note);
    }
    return std::nullopt;
}

std::optional<std::string> arm_without_success(const Experiment& e)
{
    for (const auto& arm : e.arms) {
        int timed = 0;
        const Sample* last_failed = nullptr;
        bool succeeded = false;
        for (const auto& s : e.samples) {
            if (s.arm != arm.name || s.warmup)
                continue;
            ++timed;
            if (s.failed)
                last_failed = &s;
            else
                succeeded = true;
        }
        if (timed > 0 && !succeeded)
            return fmt::format("arm {}: all {} of its timed repetitions failed, nothing to judge; the last: {}",
                arm.name, timed, last_failed->note);
    }
    return std::nullopt;
}

std::vector<std::string> command_missing_gates(const Experiment& e)
{
    std::vector<std::string> gates;
    for (const auto& a : e.arms)
        if (a.command && a.command->check.empty())
            gates.push_back(fmt::format("correctness: arm {} is an external command without a check command "
                                        "(unverified; give --check-cmd)",
                a.name));
    return gates;
}

} // namespace kwb::command
