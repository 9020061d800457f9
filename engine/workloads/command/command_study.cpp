// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/command_study.h"

#include "study/arm_roles.h"
#include "verdict/verdict.h"
#include "workloads/command/adapter.h"
#include "workloads/command/command_spec.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb::command {

RunPlan CommandStudyRequest::default_plan()
{
    RunPlan p;
    p.runs_per_arm = kDefaultRunsPerArm;
    p.min_rep_ms = 0; // a command's repetition is what it is: no launch calibration
    return p;
}

std::string default_metric(const std::string& adapter, const nlohmann::json& adapter_options)
{
    if (adapter.empty() || adapter == "auto")
        return "time_ms";
    std::unique_ptr<Adapter> a;
    try {
        a = make_adapter(adapter, adapter_options);
    } catch (const AdapterError& e) {
        throw CommandStudyError("adapter", e.what());
    }
    // Keys such as "p(N)_ttft_ms" describe a family, not one metric: the first plain one.
    for (const auto& k : a->keys())
        if (k.metric.find_first_of("([ ") == std::string::npos)
            return k.metric;
    return "time_ms";
}

namespace {

void check_arm(const CommandSpec& c, const char* field)
{
    if (c.cmd.empty())
        throw CommandStudyError(field, "a command A/B needs both a baseline and a treatment command");
    try {
        validate(c, field);
    } catch (const WorkloadError& e) {
        throw CommandStudyError(field, e.what());
    }
}

RunPlan checked_plan(RunPlan plan)
{
    if (plan.runs_per_arm < 1)
        throw CommandStudyError("runs_per_arm", "must be at least 1");
    // Whole ABBA blocks, as every new plan (study/plan_limits.h).
    if (plan.order == RunOrder::Abba)
        plan.runs_per_arm = whole_abba_runs(plan.runs_per_arm);
    plan.min_rep_ms = 0;
    if (plan.warmup_runs < 0)
        throw CommandStudyError("warmup_runs", "must not be negative");
    if (!(plan.max_seconds > 0) || !std::isfinite(plan.max_seconds))
        throw CommandStudyError("max_seconds", "must be a number of seconds above 0");
    if (!(plan.duration_s >= 0) || !std::isfinite(plan.duration_s))
        throw CommandStudyError("duration_s", "must be a number of seconds, 0 or more");
    if (plan.stop == StopRule::Duration && !(plan.duration_s > 0))
        throw CommandStudyError("duration_s", "the duration rule needs a duration in seconds above 0");
    // Every plan number in its documented range (study/plan_limits.h), as the loader checks it.
    for (const auto& p : plan_problems(plan))
        throw CommandStudyError(p.field, p.problem);
    return plan;
}

// Each declared field once, in the order given; one the adapter never reports is refused.
std::vector<std::string> checked_expect_differ(const CommandStudyRequest& r)
{
    std::vector<std::string> out;
    if (r.expect_differ.empty())
        return out;
    std::vector<std::string> known;
    try {
        known = fingerprint_fields(r.baseline.adapter, r.baseline.adapter_options);
    } catch (const AdapterError& e) {
        throw CommandStudyError("adapter", e.what());
    }
    std::string list;
    for (const auto& k : known)
        list += (list.empty() ? "" : ", ") + k;
    const std::string adapter = r.baseline.adapter == "auto" ? "any adapter" : "the " + r.baseline.adapter + " adapter";
    for (const auto& field : r.expect_differ) {
        if (std::find(known.begin(), known.end(), field) == known.end())
            throw CommandStudyError("expect_differ",
                known.empty()
                    ? fmt::format("'{}': {} reports no fingerprint fields", field, adapter)
                    : fmt::format("'{}' is not a fingerprint field of {} (fields: {})", field, adapter, list));
        if (std::find(out.begin(), out.end(), field) == out.end())
            out.push_back(field);
    }
    return out;
}

} // namespace

Study new_command_study(const CommandStudyRequest& r)
{
    check_arm(r.baseline, "baseline");
    check_arm(r.treatment, "treatment");
    // One adapter for both arms: the arms are read alike, so unlike quantities never meet.
    if (r.baseline.adapter != r.treatment.adapter || r.baseline.adapter_options != r.treatment.adapter_options)
        throw CommandStudyError("adapter",
            fmt::format("both arms are read by one adapter (baseline: {}, treatment: {})", r.baseline.adapter,
                r.treatment.adapter));
    if (r.baseline.cmd == r.treatment.cmd && r.baseline.cwd == r.treatment.cwd && r.baseline.env == r.treatment.env)
        throw CommandStudyError("treatment",
            "the same command as the baseline (same line, folder and environment); an A/B needs two different "
            "commands");
    if (r.backend != "auto" && r.backend != "cpu" && r.backend != "cuda")
        throw CommandStudyError("backend", fmt::format("'{}' is not auto, cpu or cuda", r.backend));
    const std::vector<std::string> expect_differ = checked_expect_differ(r);
    const std::string metric
        = r.metric.empty() ? default_metric(r.baseline.adapter, r.baseline.adapter_options) : r.metric;
    const KeySpec spec = metric_spec(metric);
    try {
        (void)make_profile(r.profile, spec.direction);
    } catch (const std::invalid_argument& e) {
        throw CommandStudyError("profile", e.what());
    }

    Experiment e;
    e.id = "ab-1";
    e.workload = kCommandWorkload;
    e.backend = r.backend;
    e.expect_differ = expect_differ;
    e.metric = metric;
    e.guards = r.guards;
    e.plan = checked_plan(r.plan);
    e.profile = r.profile;
    Arm base {"baseline", nlohmann::json::object()}, treat {"treatment", nlohmann::json::object()};
    base.command = r.baseline;
    treat.command = r.treatment;
    e.arms = {std::move(base), std::move(treat)};
    if (r.aa_arm)
        add_aa_arm(e); // the baseline command again, as its own arm, to the same n

    Study s;
    s.name = r.name.empty() ? fmt::format("command A/B: {}", metric) : r.name;
    s.description
        = fmt::format("A/B of two external commands read through the {} adapter, judged on {}. Baseline: `{}`; "
                      "treatment: `{}`.",
            r.baseline.adapter, metric, r.baseline.cmd, r.treatment.cmd);
    s.target.metric = metric;
    s.target.direction = spec.direction;
    s.target.unit = spec.unit;
    s.target.kernel = fmt::format("external command: `{}` against `{}`", r.baseline.cmd, r.treatment.cmd);
    const std::string& check = !r.baseline.check.empty() ? r.baseline.check : r.treatment.check;
    s.target.reference
        = check.empty() ? std::string() : fmt::format("check command `{}` (exit 0 = correct), once per arm", check);
    const std::string& cwd = r.baseline.cwd;
    s.target.workload = fmt::format("what the commands run{}", cwd.empty() ? "" : " in " + cwd);
    s.experiments.push_back(std::move(e));
    return s;
}

} // namespace kwb::command
