// SPDX-License-Identifier: GPL-3.0-or-later
// The machine-readable summary: the same model as the human formats, as JSON (docs/report.md has
// the schema). Undefined numbers are null, never NaN, as in the verdict JSON.
#include "report/kernels_report.h"
#include "report/render.h"
#include "report/roofline_report.h"
#include "study/device_identity.h"
#include "study/lane_range.h"
#include "verdict/evidence.h"

namespace kwb::report {
namespace {

using nlohmann::json;

json strings(const std::vector<std::string>& v)
{
    return json(v);
}

json range_json(const std::optional<Range>& r)
{
    return r ? json {{"min", r->min}, {"max", r->max}} : json(nullptr);
}

json arm_json(const ArmReport& a)
{
    json j = {{"name", a.name}, {"params", a.params}, {"warmups", a.warmups}, {"discarded", a.discarded},
        {"throttled", a.throttled}, {"n", a.values.size()}};
    if (a.summary)
        j.update(arm_to_json(*a.summary, a.bimodality)); // the verdict JSON's own arm object
    j["bimodal"] = a.bimodality.bimodal ? json(*a.bimodality.bimodal) : json(nullptr);
    if (a.check)
        j["correctness"] = {{"ok", a.check->ok}, {"max_abs_error", number_or_null(a.check->max_abs_error)},
            {"max_rel_error", number_or_null(a.check->max_rel_error)},
            {"tolerance", number_or_null(a.check->tolerance)}, {"compared", a.check->compared},
            {"checked_at", a.check->checked_at}};
    else
        j["correctness"] = nullptr;
    return j;
}

json verdict_json(const StoredVerdict& v, bool final)
{
    if (!v.present)
        return nullptr;
    json j = {{"verdict", v.word}, {"reasons", strings(v.reasons)}, {"profile", v.profile}};
    if (!final) {
        j["rule"] = v.rule ? json(*v.rule) : json(nullptr);
        j["runs_needed_per_arm"] = number_or_null(v.runs_needed_per_arm);
        return j;
    }
    j["sample_verdict"] = v.sample_word;
    j["flags"] = strings(v.flags);
    j["predicted_delta_pct"] = number_or_null(v.predicted_delta_pct);
    j["measured_delta_pct"] = number_or_null(v.measured_delta_pct);
    j["tradeoff_named"] = v.tradeoff_named ? json(*v.tradeoff_named) : json(nullptr);
    j["guards"] = json::array();
    for (const auto& g : v.guards)
        j["guards"].push_back({{"metric", g.metric}, {"verdict", g.verdict.empty() ? json(nullptr) : json(g.verdict)},
            {"assessed", g.assessed}, {"regressed", g.regressed}, {"delta_pct", number_or_null(g.delta_pct)},
            {"sigma_pct", number_or_null(g.sigma_pct)}, {"ci95_delta_pct", interval_or_null(g.ci95_delta_pct)}});
    j["gpu_sharing"] = v.gpu_sharing.is_null() ? json(nullptr) : v.gpu_sharing;
    j["cycles"] = v.cycles.is_null() ? json(nullptr) : v.cycles;
    return j;
}

// The verdict story (verdict/verdict_story.h): the sentences every format and the window say.
json story_json(const VerdictStory& s)
{
    return {{"verdict", std::string(to_string(s.word))}, {"reason", s.reason}, {"change", s.change},
        {"numbers_alone", s.numbers_alone}, {"numbers_verdict", std::string(to_string(s.numbers_word))},
        {"next_step",
            {{"kind", std::string(to_string(s.next.kind))}, {"text", s.next.text}, {"action", s.next.action},
                {"runs_per_arm", s.next.runs_per_arm ? json(*s.next.runs_per_arm) : json(nullptr)},
                {"phase", s.next.phase}}}};
}

json arm_lane_json(const ArmLaneStats& a)
{
    return {{"repetitions", a.repetitions}, {"mean", number_or_null(a.mean)},
        {"ci95", a.ci95_low ? json {*a.ci95_low, *a.ci95_high} : json(nullptr)}, {"cv_pct", number_or_null(a.cv_pct)}};
}

json metric_diff_json(const MetricDiff& d)
{
    json rows = json::array();
    for (const auto& r : d.rows)
        rows.push_back({{"metric", r.metric}, {"unit", r.unit}, {"baseline", arm_lane_json(r.baseline)},
            {"treatment", arm_lane_json(r.treatment)}, {"delta", number_or_null(r.delta)},
            {"delta_pct", number_or_null(r.delta_pct)}, {"noise_pct", number_or_null(r.noise_pct)},
            {"beyond_noise", r.beyond_noise}});
    const auto or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    return {{"baseline_arm", d.baseline_arm}, {"treatment_arm", d.treatment_arm}, {"noise_k", d.noise_k},
        {"rows", rows},
        {"binding",
            {{"baseline", or_null(d.baseline_binding)}, {"treatment", or_null(d.treatment_binding)},
                {"change", or_null(d.binding_change)}}},
        {"summary", metric_diff_summary(d)}, {"notes", strings(d.notes)}};
}

json experiment_json(const ExperimentReport& e)
{
    json j = {{"id", e.id}, {"kind", e.kind}, {"workload", e.workload}, {"backend", e.backend}, {"metric", e.metric},
        {"unit", e.unit}, {"direction", std::string(to_string(e.direction))}, {"status", e.status},
        {"stop_reason", e.stop_reason}, {"error", e.error}, {"profile", e.profile_name},
        {"plan",
            {{"runs_per_arm", e.plan.runs_per_arm}, {"warmup_runs", e.plan.warmup_runs},
                {"order", std::string(to_string(e.plan.order))}, {"seed", e.plan.seed},
                {"stop", std::string(to_string(e.plan.stop))}, {"duration_s", e.plan.duration_s},
                {"max_seconds", e.plan.max_seconds}, {"min_rep_ms", e.plan.min_rep_ms},
                {"split_halves", e.plan.split_halves}}},
        {"launches_per_rep", e.launches_per_rep ? json(*e.launches_per_rep) : json(nullptr)},
        {"device", device_identity_json(e.device)}, {"limitations", strings(e.limitations)},
        {"missing_gates", strings(e.missing_gates)}, {"guard_metrics", strings(e.guard_metrics)},
        {"clocks",
            {{"sm_clock_mhz", range_json(e.clock_mhz)}, {"temperature_c", range_json(e.temperature_c)},
                {"power_w", range_json(e.power_w)}}},
        {"first_sample_at", e.first_sample_at}, {"last_sample_at", e.last_sample_at}};
    j["arms"] = json::array();
    for (const auto& a : e.arms)
        j["arms"].push_back(arm_json(a));
    json diffs = json::array();
    for (const auto& d : e.diff.differences)
        diffs.push_back({{"name", d.name}, {"baseline", d.baseline}, {"treatment", d.treatment}});
    j["diff"] = {{"differences", diffs}, {"one_sided", strings(e.diff.one_sided)},
        {"single_variable", e.diff.single_variable()}, {"acknowledged_multi_variable", e.acknowledged_multi_variable}};
    j["controls"] = json::array();
    for (const auto& c : e.controls)
        j["controls"].push_back({{"name", c.name}, {"checked", c.checked},
            {"measured", c.measured.empty() ? json(nullptr) : json(c.measured)}});
    j["controls_notes"] = e.controls_notes;
    if (e.evidence) {
        const auto& ev = *e.evidence;
        j["evidence"]
            = {{"delta_pct", number_or_null(ev.delta_pct)}, {"ci95_delta_pct", interval_or_null(ev.ci95_delta_pct)},
                {"sigma_pct", number_or_null(ev.sigma_pct)}, {"speedup", number_or_null(ev.speedup)},
                {"p_welch", number_or_null(ev.p_welch)}, {"p_mannwhitney", number_or_null(ev.mannwhitney.p)},
                {"mannwhitney_method", std::string(to_string(ev.mannwhitney.method))},
                {"paired",
                    ev.paired ? json {{"n_pairs", ev.paired->n_pairs},
                        {"mean_delta_pct", number_or_null(ev.paired->mean_delta_pct)},
                        {"ci95_delta_pct", interval_or_null(ev.paired->ci95_delta_pct)}}
                              : json(nullptr)}};
    } else {
        j["evidence"] = nullptr;
    }
    j["sample_verdict"] = verdict_json(e.sample, false);
    j["final_verdict"] = verdict_json(e.final, true);
    j["story"] = e.story ? story_json(*e.story) : json(nullptr);
    j["split_half"] = e.split_half
        ? json {{"splits", e.split_half->splits}, {"false_alarms", e.split_half->false_alarms},
            {"false_alarm_rate", e.split_half->false_alarm_rate()}, {"verdicts", strings(e.split_half->verdicts)},
            {"method", e.split_half->method}}
        : json(nullptr);
    j["metric_diff"] = e.metric_diff ? metric_diff_json(*e.metric_diff) : json(nullptr);
    j["roofline"] = e.roofline ? roofline_json(*e.roofline) : json(nullptr);
    j["kernels"] = e.kernels ? kernels_json(*e.kernels) : json(nullptr);
    j["lanes"] = json::array();
    for (const auto& l : e.lanes) {
        // n: the readings a report draws; a lane recorded before the range rule may hold some it drops.
        const unsigned long long dropped = lane_dropped_readings(l);
        j["lanes"].push_back({{"name", l.name}, {"unit", l.unit},
            {"n", l.values.size() - static_cast<std::size_t>(dropped - l.dropped_out_of_range)},
            {"dropped_out_of_range", dropped}});
    }
    return j;
}

// The A/A section: each experiment's real A/A as stored, and the attached per-device history.
json aa_json(const Report& r)
{
    json experiments = json::array();
    for (const auto& e : r.experiments) {
        if (!e.aa)
            continue;
        const AaReport& a = *e.aa;
        experiments.push_back({{"experiment", e.id}, {"grid", a.grid.empty() ? json(nullptr) : json(a.grid)},
            {"arm", a.arm}, {"judged", a.judged}, {"n", a.judged ? json(a.n) : json(nullptr)},
            {"verdict", a.judged ? json(a.word) : json(nullptr)}, {"delta_pct", number_or_null(a.delta_pct)},
            {"ci95_delta_pct", a.ci95_delta_pct ? json(*a.ci95_delta_pct) : json(nullptr)},
            {"false_alarm", a.judged ? json(a.false_alarm) : json(nullptr)}, {"summary", a.summary}});
    }
    const AaHistoryReport& h = r.aa_history;
    json devices = json::array();
    for (const auto& rate : h.rates)
        devices.push_back({{"device", rate.device}, {"runs", rate.runs}, {"false_alarms", rate.false_alarms},
            {"rate", rate.rate}, {"ci95", rate.ci95}, {"summary", describe(rate)}});
    return {{"has_aa_arm", has_aa_arm(r)}, {"experiments", experiments},
        {"history",
            {{"attached", h.attached}, {"source", h.source},
                {"problem", h.problem.empty() ? json(nullptr) : json(h.problem)}, {"devices", devices}}}};
}

} // namespace

json render_json(const Report& r)
{
    json j = {{"report_schema_version", kReportJsonSchemaVersion},
        {"study",
            {{"name", r.name}, {"description", r.description}, {"schema_version", r.schema_version},
                {"created_at", r.created_at}, {"modified_at", r.modified_at}}},
        {"verdict", r.final_word.empty() ? json(nullptr) : json(r.final_word)},
        {"verdict_experiment", r.final_experiment.empty() ? json(nullptr) : json(r.final_experiment)},
        {"target",
            {{"metric", r.target.metric}, {"direction", std::string(to_string(r.target.direction))},
                {"unit", r.target.unit}, {"current", number_or_null(r.target.current)},
                {"goal", number_or_null(r.target.goal)}, {"kernel", r.target.kernel}, {"reference", r.target.reference},
                {"workload", r.target.workload}}},
        {"hardware",
            {{"captured_at", r.hardware.captured_at}, {"device_in_use", r.hardware.device_in_use},
                {"devices", r.hardware.devices}, {"warnings", strings(r.hardware.warnings)}}},
        {"binding", {{"constraint", r.binding.constraint}, {"notes", r.binding.notes}, {"metrics", r.binding.metrics}}},
        {"prediction",
            {{"formula", r.prediction.formula}, {"variables", r.prediction.variables},
                {"predicted_delta_pct", number_or_null(r.prediction.predicted_delta_pct)},
                {"rationale", r.prediction.rationale}}}};
    j["tradeoffs"] = json::array();
    for (const auto& t : r.tradeoffs)
        j["tradeoffs"].push_back({{"axis", t.axis}, {"sacrificed", t.sacrificed}, {"note", t.note}});
    j["experiments"] = json::array();
    for (const auto& e : r.experiments)
        j["experiments"].push_back(experiment_json(e));
    j["grids"] = json::array();
    for (const auto& g : r.grids) {
        json cells = json::array();
        for (const auto& c : g.cells)
            cells.push_back({{"cell", c.label}, {"row", c.row}, {"col", c.col}, {"baseline", c.baseline},
                {"experiment", c.experiment_id.empty() ? json(nullptr) : json(c.experiment_id)}, {"status", c.status},
                {"delta_pct", number_or_null(c.delta_pct)},
                {"ci95_delta_pct", c.ci95_delta_pct ? json(*c.ci95_delta_pct) : json(nullptr)},
                {"sigma_pct", number_or_null(c.sigma_pct)}, {"n_baseline", c.n_baseline},
                {"n_treatment", c.n_treatment}, {"verdict", c.verdict.empty() ? json(nullptr) : json(c.verdict)},
                {"ran_on", c.ran_on.empty() ? json(nullptr) : json(c.ran_on)}});
        j["grids"].push_back({{"id", g.id}, {"metric", g.metric},
            {"variables",
                {{{"name", g.row_variable}, {"levels", strings(g.row_levels)}},
                    {{"name", g.col_variable}, {"levels", strings(g.col_levels)}}}},
            {"cells", cells}, {"interaction", g.interaction ? to_json(*g.interaction) : nlohmann::json(nullptr)},
            {"pending", strings(g.pending)}});
    }
    j["aa"] = aa_json(r);
    j["ledger"] = json::array();
    for (const auto& l : r.ledger)
        j["ledger"].push_back({{"experiment", l.experiment_id}, {"at", l.at}, {"verdict", l.verdict},
            {"summary", l.summary}, {"hypotheses", strings(l.hypotheses)}});
    const auto& p = r.provenance;
    j["kernels_problem"] = r.kernels_problem.empty() ? json(nullptr) : json(r.kernels_problem);
    j["provenance"] = {{"workbench_version", p.workbench_version}, {"generated_at", p.generated_at},
        {"study_path", p.study_path}, {"study_sha256", p.study_sha256}, {"command_line", p.command_line}};
    return j;
}

} // namespace kwb::report
