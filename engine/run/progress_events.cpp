// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/progress_events.h"

#include "verdict/aa_verdict.h"
#include "verdict/verdict_json.h"

namespace kwb::progress {

using nlohmann::json;

json start_event(const std::string& study, const Experiment& e, const RunStart& start, const std::string& unit,
    const std::string& direction, const std::string& at)
{
    json arms = json::array();
    for (const auto& a : e.arms)
        arms.push_back(a.name);
    return {{"type", "start"}, {"study", study}, {"experiment", e.id}, {"workload", e.workload},
        {"backend", start.backend}, {"metric", e.metric}, {"unit", unit}, {"direction", direction},
        {"plan",
            {{"arms", arms}, {"runs_per_arm", start.runs_per_arm}, {"warmup_runs", e.plan.warmup_runs},
                {"order", start.order}, {"order_truncated", start.order_truncated},
                {"order_rule", to_string(e.plan.order)}, {"seed", e.plan.seed}, {"stop", to_string(e.plan.stop)},
                {"duration_s", e.plan.duration_s}, {"max_seconds", e.plan.max_seconds},
                {"split_halves", e.plan.split_halves}}},
        {"done_before", start.done_before}, {"at", at}};
}

json sample_event(const Experiment& e, const Sample& s, double t_s)
{
    json flags = json::array();
    if (s.throttled)
        flags.push_back("throttled");
    if (s.discarded)
        flags.push_back("discarded");
    const auto value = s.metrics.find(e.metric);
    json event = {{"type", "sample"}, {"experiment", e.id}, {"arm", s.arm}, {"rep", s.rep}, {"position", s.position},
        {"value", value == s.metrics.end() ? json(nullptr) : json(value->second)}, {"values", s.metrics},
        {"duration_s", s.duration_s}, {"t_s", t_s}, {"warmup", s.warmup}, {"flags", flags}};
    if (!s.note.empty())
        event["note"] = s.note;
    return event;
}

json metric_event(const MetricReading& r)
{
    return {{"type", "metric"}, {"t_s", r.t_s}, {"name", r.name}, {"value", r.value}, {"unit", r.unit}};
}

json progress_event(const Experiment& e, const RunProgress& p)
{
    return {{"type", "progress"}, {"experiment", e.id}, {"done", p.done}, {"planned", p.planned},
        {"elapsed_s", p.elapsed_s}, {"eta_s", p.eta_s ? json(*p.eta_s) : json(nullptr)}};
}

json verdict_event(const Experiment& e)
{
    json split_half = nullptr;
    if (e.split_half)
        split_half = {{"splits", e.split_half->splits}, {"false_alarms", e.split_half->false_alarms},
            {"false_alarm_rate", e.split_half->false_alarm_rate()}, {"verdicts", e.split_half->verdicts}};
    return {{"type", "verdict"}, {"experiment", e.id}, {"verdict", e.verdict ? to_json(*e.verdict) : json(nullptr)},
        {"final_verdict", e.final_verdict ? to_json(*e.final_verdict) : json(nullptr)}, {"status", to_string(e.status)},
        {"stop_reason", e.stop_reason}, {"split_half_check", split_half}, {"missing_gates", e.missing_gates},
        {"aa",
            e.aa_verdict ? json {{"summary", aa_summary(*e.aa_verdict)}, {"verdict", to_json(*e.aa_verdict)},
                {"false_alarm", aa_false_alarm(*e.aa_verdict)}}
                         : json(nullptr)}};
}

json aa_history_event(const Experiment& e, const std::optional<AaFalseAlarmRate>& rate, const std::string& problem)
{
    json event = {{"type", "aa_history"}, {"experiment", e.id}, {"device", e.device.model}};
    if (rate) {
        event["runs"] = rate->runs;
        event["false_alarms"] = rate->false_alarms;
        event["false_alarm_rate"] = rate->rate;
        event["ci95"] = rate->ci95;
        event["summary"] = describe(*rate);
    } else {
        event["problem"] = problem;
    }
    return event;
}

json error_event(const std::string& message, bool continues, const json& remedy)
{
    json event = {{"type", "error"}, {"message", message}, {"continues", continues}};
    if (!remedy.is_null())
        event["remedy"] = remedy;
    return event;
}

} // namespace kwb::progress
