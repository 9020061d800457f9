// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/command_controls.h"

#include "study/arm_roles.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace kwb::command {
namespace {

bool judged(const Sample& s)
{
    return !s.warmup && !s.discarded && !s.failed;
}

using Values = std::set<std::string>;
// Fingerprint field -> arm -> the values its judged repetitions reported.
using Seen = std::map<std::string, std::map<std::string, Values>>;

Seen fingerprints_seen(const Experiment& e)
{
    Seen seen;
    for (const auto& s : e.samples)
        if (judged(s))
            for (const auto& [field, value] : s.fingerprint)
                seen[field][s.arm].insert(value);
    return seen;
}

std::string quoted(const Values& v)
{
    std::string out;
    for (const auto& x : v)
        out += fmt::format("{}'{}'", out.empty() ? "" : ", ", x);
    return out;
}

// The option as a shell takes it: a field with a space ("Grid Size") in quotes.
std::string expect_differ_option(const std::string& field)
{
    const bool plain = std::all_of(field.begin(), field.end(),
        [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; });
    return fmt::format("`kwb new --expect-differ {}`", plain ? field : "'" + field + "'");
}

bool declared(const Experiment& e, const std::string& field)
{
    return std::find(e.expect_differ.begin(), e.expect_differ.end(), field) != e.expect_differ.end();
}

} // namespace

std::optional<ControlFinding> command_control_finding(const Experiment& e)
{
    if (ab_arm_count(e) != 2) // an A/A arm beside the A/B is allowed; baseline and treatment are compared
        return std::nullopt;
    const std::string& base = e.arms[0].name;
    const std::string& treat = e.arms[1].name;
    for (const auto& [field, arms] : fingerprints_seen(e)) {
        if (declared(e, field)) // expected: command_control_notes says what differed
            continue;
        const auto b = arms.find(base), t = arms.find(treat);
        if (b == arms.end() || t == arms.end()) {
            const auto& has = b == arms.end() ? t : b;
            return ControlFinding {"INCONCLUSIVE",
                fmt::format("matched controls: fingerprint field '{}' is reported by arm {} only ({}); if expected, {}",
                    field, has->first, quoted(has->second), expect_differ_option(field))};
        }
        if (b->second != t->second)
            return ControlFinding {"INCONCLUSIVE",
                fmt::format("matched controls: fingerprint field '{}' differs between arms ({} {}, {} {}); if "
                            "expected, {}",
                    field, base, quoted(b->second), treat, quoted(t->second), expect_differ_option(field))};
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

std::vector<std::string> command_control_notes(const Experiment& e)
{
    std::vector<std::string> notes;
    if (ab_arm_count(e) != 2 || e.expect_differ.empty())
        return notes;
    const Seen seen = fingerprints_seen(e);
    const std::string& base = e.arms[0].name;
    const std::string& treat = e.arms[1].name;
    for (const auto& field : e.expect_differ) {
        const auto f = seen.find(field);
        const Values none;
        const auto values = [&](const std::string& arm) -> const Values& {
            if (f == seen.end())
                return none;
            const auto a = f->second.find(arm);
            return a == f->second.end() ? none : a->second;
        };
        const Values &b = values(base), &t = values(treat);
        const auto said = [](const Values& v) { return v.empty() ? std::string("nothing") : quoted(v); };
        if (b.empty() && t.empty())
            notes.push_back(fmt::format(
                "matched controls: fingerprint field '{}' was declared to differ (--expect-differ); neither arm "
                "reported it",
                field));
        else if (b == t)
            notes.push_back(fmt::format("matched controls: fingerprint field '{}' was declared to differ "
                                        "(--expect-differ), yet both arms reported {}",
                field, quoted(b)));
        else
            notes.push_back(fmt::format("matched controls: fingerprint field '{}' differs between arms as declared "
                                        "(--expect-differ; not a blocker): {} {}, {} {}",
                field, base, said(b), treat, said(t)));
    }
    return notes;
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
