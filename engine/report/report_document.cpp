// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/report_document.h"

#include "report/kernels_report.h"
#include "report/roofline_report.h"
#include "verdict/wording.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb::report {
namespace {

using wording::num;
using Kind = Block::Kind;

std::string opt(const std::optional<double>& v, const std::string& suffix = "")
{
    return v ? num(*v) + suffix : std::string("-");
}

std::string pval(const std::optional<double>& p)
{
    return p ? wording::p_value(*p) : std::string("-");
}

std::string ci(const std::optional<stats::Interval>& c, const std::string& suffix = " %")
{
    return c ? fmt::format("[{}, {}]{}", num((*c)[0]), num((*c)[1]), suffix) : std::string("-");
}

std::string value_text(const nlohmann::json& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number_float())
        return num(v.get<double>());
    if (v.is_null())
        return "-";
    if (v.is_array()) {
        std::string out;
        bool scalars = true;
        for (const auto& x : v)
            scalars = scalars && !x.is_structured();
        if (!scalars)
            return fmt::format("{} entries", v.size());
        for (const auto& x : v)
            out += (out.empty() ? "" : ", ") + value_text(x);
        return out;
    }
    return v.dump();
}

std::string params_text(const nlohmann::json& params)
{
    std::string out;
    if (params.is_object())
        for (const auto& [k, v] : params.items())
            out += (out.empty() ? "" : ", ") + k + "=" + value_text(v);
    return out;
}

// Scalars and scalar arrays of a JSON object, nested objects flattened as "a.b".
void flatten(const nlohmann::json& j, const std::string& prefix, std::vector<std::vector<std::string>>& rows)
{
    for (const auto& [k, v] : j.items()) {
        const std::string key = prefix.empty() ? k : prefix + "." + k;
        if (v.is_object())
            flatten(v, key, rows);
        else
            rows.push_back({key, value_text(v)});
    }
}

struct Doc {
    std::vector<Block> blocks;
    static Block make(Kind kind, int level = 0, std::string text = {})
    {
        Block b;
        b.kind = kind;
        b.level = level;
        b.text = std::move(text);
        return b;
    }
    void h(int level, std::string text) { blocks.push_back(make(Kind::Heading, level, std::move(text))); }
    void p(std::string text)
    {
        if (!text.empty())
            blocks.push_back(make(Kind::Paragraph, 0, std::move(text)));
    }
    void table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows)
    {
        Block b = make(Kind::Table);
        b.header = std::move(header);
        b.rows = std::move(rows);
        blocks.push_back(std::move(b));
    }
    void list(std::vector<std::string> items)
    {
        if (items.empty())
            return;
        Block b = make(Kind::List);
        b.items = std::move(items);
        blocks.push_back(std::move(b));
    }
    void verdict(const std::string& word, std::vector<std::string> reasons)
    {
        Block b = make(Kind::Verdict, 0, word);
        b.items = std::move(reasons);
        blocks.push_back(std::move(b));
    }
    void chart(Chart c)
    {
        Block b = make(Kind::Chart);
        b.text = c.title;
        b.chart = std::move(c);
        blocks.push_back(std::move(b));
    }
};

std::string target_line(const Target& t)
{
    const std::string unit = t.unit.empty() ? "" : " " + t.unit;
    return fmt::format("{} from {} to {}{} ({} is better)", t.metric.empty() ? "(no metric)" : t.metric, opt(t.current),
        opt(t.goal), unit, to_string(t.direction));
}

void study_sections(Doc& d, const Report& r)
{
    d.h(2, "Target");
    d.p(target_line(r.target));
    d.table({"", "what"},
        {{"K (kernel)", r.target.kernel}, {"R (reference)", r.target.reference}, {"W (workload)", r.target.workload}});

    d.h(2, "Hardware sheet");
    d.p(fmt::format("Captured {}; experiments ran on {}.",
        r.hardware.captured_at.empty() ? "-" : r.hardware.captured_at,
        r.hardware.device_in_use.empty() ? "-" : r.hardware.device_in_use));
    for (const auto& dev : r.hardware.devices) {
        std::vector<std::vector<std::string>> rows;
        flatten(dev, "", rows);
        d.h(3, fmt::format("{} ({})", dev.value("name", std::string("device")), dev.value("kind", std::string("?"))));
        d.table({"field (measured ceilings where recorded)", "value"}, rows);
    }
    if (!r.hardware.warnings.empty()) {
        d.p("Known traps for this device:");
        d.list(r.hardware.warnings);
    }

    d.h(2, "Binding constraint");
    d.p(fmt::format("Constraint: {}.", r.binding.constraint.empty() ? "not recorded" : r.binding.constraint));
    d.p(r.binding.notes);
    if (r.binding.metrics.is_object() && !r.binding.metrics.empty()) {
        std::vector<std::vector<std::string>> rows;
        flatten(r.binding.metrics, "", rows);
        d.table({"evidence", "measured"}, rows);
    }

    d.h(2, "Prediction");
    d.p(r.prediction.formula.empty() ? "No formula recorded." : "Formula: `" + r.prediction.formula + "`");
    std::vector<std::vector<std::string>> vars;
    for (const auto& [k, v] : r.prediction.variables)
        vars.push_back({k, num(v)});
    if (!vars.empty())
        d.table({"variable", "value"}, vars);
    d.p(fmt::format("Predicted delta: {}.", opt(r.prediction.predicted_delta_pct, " %")));
    d.p(r.prediction.rationale);

    d.h(2, "Tradeoffs");
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : r.tradeoffs)
        rows.push_back({t.axis, t.sacrificed ? "sacrificed" : "kept", t.note});
    if (rows.empty())
        d.p("No tradeoff axis answered.");
    else
        d.table({"axis", "", "what was given up"}, rows);
}

std::string check_text(const std::optional<CorrectnessCheck>& c)
{
    if (!c)
        return "not recorded";
    std::string s = c->ok ? "passed" : "FAILED";
    if (c->max_abs_error)
        s += fmt::format("; max abs error {}", num(*c->max_abs_error));
    if (c->max_rel_error)
        s += fmt::format("; max rel error {}", num(*c->max_rel_error));
    if (c->tolerance)
        s += fmt::format("; tolerance {}", num(*c->tolerance));
    if (!c->compared.empty())
        s += "; " + c->compared;
    return s;
}

std::string modes_text(const stats::Bimodality& b)
{
    if (!b.bimodal)
        return "not assessed";
    if (!*b.bimodal)
        return "no";
    std::string s = "yes:";
    for (const auto& m : b.modes)
        s += fmt::format(" {} % of runs at {};", num(100 * m.share), num(m.mean));
    s.pop_back();
    return s;
}

// Why it is faster: every lane per arm over the judged repetitions, and whether it moved beyond its noise.
void metric_diff_section(Doc& d, const MetricDiff& m)
{
    d.h(3, "Metrics by arm (lanes over the judged repetitions)");
    d.p(metric_diff_summary(m) + ".");
    const auto mean_ci = [](const ArmLaneStats& a) {
        if (!a.mean)
            return std::string("-");
        return a.ci95_low
            ? fmt::format("{} [{}, {}] (n = {})", num(*a.mean), num(*a.ci95_low), num(*a.ci95_high), a.repetitions)
            : fmt::format("{} (n = {})", num(*a.mean), a.repetitions);
    };
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : m.rows)
        rows.push_back({r.metric, r.unit, mean_ci(r.baseline), mean_ci(r.treatment), opt(r.delta), opt(r.delta_pct),
            opt(r.noise_pct), r.delta_pct && r.noise_pct ? (r.beyond_noise ? "beyond" : "within") : "-"});
    d.table({"lane", "unit", m.baseline_arm + " mean [95% CI]", m.treatment_arm + " mean [95% CI]", "difference",
                "difference %", fmt::format("noise % ({} x sigma)", num(m.noise_k)), "beyond noise"},
        rows);
    d.p(fmt::format("Binding constraint from each arm's lane means: {} -> {}{}.",
        m.baseline_binding.empty() ? "not called" : m.baseline_binding,
        m.treatment_binding.empty() ? "not called" : m.treatment_binding,
        m.binding_change.empty() ? "" : " (changed)"));
    if (!m.notes.empty())
        d.list(m.notes);
}

// Where each arm stands against the device's roofs (verdict/roofline.h); the chart is among the
// experiment's charts above.
void roofline_section(Doc& d, const Roofline& r)
{
    d.h(3, "Roofline");
    d.p(roofline_roofs_line(r) + ".");
    d.table(roofline_table_header(), roofline_table_rows(r));
    std::vector<std::string> notes;
    for (const auto& a : r.arms)
        if (!a.derived.empty())
            notes.push_back(a.name + ": " + a.derived);
    notes.insert(notes.end(), r.notes.begin(), r.notes.end());
    d.list(notes);
}

// The kernels of both arms (report/kernels_report.h): their code and resources, differing first.
void kernels_section(Doc& d, const KernelsReport& k)
{
    d.h(3, "Kernels");
    d.p(kernels_source_line(k));
    if (k.rows.empty())
        d.p("No CUDA kernel was read in either arm.");
    else
        d.table(kernels_table_header(), kernels_table_rows(k));
    std::vector<std::string> notes;
    if (k.identical_sass_reason)
        notes.push_back(*k.identical_sass_reason);
    notes.insert(notes.end(), k.notes.begin(), k.notes.end());
    d.list(notes);
}

void experiment_sections(Doc& d, const ExperimentReport& e)
{
    d.h(2, fmt::format("Experiment {}: {} on {} ({})", e.id, e.workload, e.backend, e.status));
    if (e.story) // the one story: word, deciding reason, what would change it, next step, the numbers alone
        d.verdict(e.final.word, story_lines(*e.story));
    else if (e.final.present)
        d.verdict(e.final.word, e.final.reasons);
    else
        d.verdict("NOT JUDGED", {e.error.empty() ? "the experiment has no verdict" : e.error});

    d.h(3, "Arms and their diff");
    std::vector<std::vector<std::string>> arms;
    for (const auto& a : e.arms)
        arms.push_back(
            {a.name, a.command.empty() ? params_text(a.params) : "`" + a.command + "`", check_text(a.check)});
    d.table({"arm", e.command_arms ? "command" : "parameters", "correctness check"}, arms);
    if (e.diff.differences.empty())
        d.p(e.command_arms ? "The first two arms' commands do not differ in any setting."
                           : "The first two arms do not differ in any parameter.");
    for (const auto& diff : e.diff.differences)
        d.p(fmt::format("Differs in {}: {} -> {}.", diff.name, value_text(diff.baseline), value_text(diff.treatment)));
    // A command line is opaque: several changed settings of a command are not several variables.
    if (e.command_arms)
        d.p("External commands: the workbench cannot count the variables inside a command line; the diff "
            "names the settings that differ.");
    else if (!e.diff.single_variable())
        d.p(e.acknowledged_multi_variable ? "More than one parameter differs; the user acknowledged it."
                                          : "More than one parameter differs: the result cannot be attributed.");
    for (const auto& s : e.diff.one_sided)
        d.p(fmt::format("Set on one arm only (same effective value): {}.", s));

    d.h(3, "Matched controls");
    std::vector<std::vector<std::string>> controls;
    for (const auto& c : e.controls)
        controls.push_back({c.name, c.measured.empty() ? (c.checked ? "ticked" : "not ticked") : "measured",
            c.measured.empty() ? "-" : c.measured});
    if (controls.empty())
        d.p("No controls recorded.");
    else
        d.table({"control", "how verified", "what the run recorded"}, controls);
    d.p(e.controls_notes);

    d.h(3, "Plan and why it stopped");
    const auto& pl = e.plan;
    d.table({"setting", "value"},
        {{"runs per arm", std::to_string(pl.runs_per_arm)}, {"warm-up runs per arm", std::to_string(pl.warmup_runs)},
            {"order",
                std::string(to_string(pl.order))
                    + (pl.order == RunOrder::RandomisedBlocks ? fmt::format(" (seed {})", pl.seed) : "")},
            {"stop rule", std::string(to_string(pl.stop))},
            {"duration", pl.stop == StopRule::Duration ? num(pl.duration_s) + " s" : "-"},
            {"time limit", num(pl.max_seconds) + " s"},
            {"minimum repetition", pl.min_rep_ms > 0 ? num(pl.min_rep_ms) + " ms" : "off"},
            {"launches per repetition", e.launches_per_rep ? std::to_string(*e.launches_per_rep) : "-"},
            {"split halves", std::to_string(pl.split_halves)}, {"profile", e.profile_name},
            {"stopped because", e.stop_reason.empty() ? "-" : e.stop_reason}});
    if (!e.error.empty())
        d.p("Error: " + e.error);

    d.h(3, "Device during the run");
    std::vector<std::vector<std::string>> dev {
        {"device", e.device.empty() ? "-" : fmt::format("{} {}", e.device.kind, e.device.model)},
        {"uuid", e.device.uuid.empty() ? "-" : e.device.uuid},
        {"driver", e.device.driver.empty() ? "-" : e.device.driver},
        {"first / last judged repetition",
            fmt::format("{} / {}", e.first_sample_at.empty() ? "-" : e.first_sample_at,
                e.last_sample_at.empty() ? "-" : e.last_sample_at)}};
    auto range = [](const std::optional<Range>& r, const char* unit) {
        return r ? fmt::format("{} - {} {}", num(r->min), num(r->max), unit) : std::string("not recorded");
    };
    dev.push_back({"SM clock", range(e.clock_mhz, "MHz")});
    dev.push_back({"temperature", range(e.temperature_c, "C")});
    dev.push_back({"power", range(e.power_w, "W")});
    d.table({"", "value"}, dev);
    if (!e.limitations.empty()) {
        d.p("What this run could not record:");
        d.list(e.limitations);
    }
    if (!e.missing_gates.empty()) {
        d.p("Workflow gates that were not met when it ran:");
        d.list(e.missing_gates);
    }

    d.h(3, fmt::format("Statistics of {} per arm", e.unit.empty() ? e.metric : e.metric + " (" + e.unit + ")"));
    std::vector<std::vector<std::string>> st;
    for (const auto& a : e.arms) {
        if (!a.summary) {
            st.push_back({a.name, "0", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"});
            continue;
        }
        const auto& s = *a.summary;
        st.push_back({a.name, std::to_string(s.n), num(s.mean), num(s.median), opt(s.stddev), opt(s.cv_pct), num(s.p50),
            num(s.p90), num(s.p99), num(s.min), num(s.max), fmt::format("{} / {}", s.outliers.mild, s.outliers.extreme),
            std::to_string(a.throttled), modes_text(a.bimodality)});
    }
    d.table({"arm", "n", "mean", "median", "sd", "cv %", "p50", "p90", "p99", "min", "max", "outliers mild / extreme",
                "throttled", "bimodal"},
        st);
    std::vector<std::string> excluded;
    for (const auto& a : e.arms)
        excluded.push_back(fmt::format("{}: {} warm-up and {} discarded repetitions kept in the study, not judged",
            a.name, a.warmups, a.discarded));
    d.list(excluded);

    if (e.evidence) {
        const auto& ev = *e.evidence;
        d.h(3, "Delta and evidence");
        std::vector<std::vector<std::string>> rows {{"delta % (positive = better)", num(ev.delta_pct)},
            {"95% CI of delta % (bootstrap, 10,000 resamples)", ci(ev.ci95_delta_pct)},
            {"sigma % (cv of the noisier arm)", opt(ev.sigma_pct)}, {"speedup", num(ev.speedup) + "x"},
            {"Welch t-test p", pval(ev.p_welch)},
            {"Mann-Whitney U p",
                fmt::format("{} ({})", wording::p_value(ev.mannwhitney.p), to_string(ev.mannwhitney.method))}};
        if (ev.paired)
            rows.push_back({fmt::format("paired delta % ({} pairs), 95% CI", ev.paired->n_pairs),
                fmt::format("{} {}", num(ev.paired->mean_delta_pct), ci(ev.paired->ci95_delta_pct))});
        else
            rows.push_back({"paired evidence", "not paired"});
        if (e.sample.runs_needed_per_arm)
            rows.push_back({"runs per arm for the CI to clear a threshold",
                fmt::format("about {} (to clear {} %)", num(*e.sample.runs_needed_per_arm),
                    opt(e.sample.runs_needed_threshold_pct))});
        d.table({"evidence", "value"}, rows);
    }
    for (const auto& c : charts_of(e))
        d.chart(c);
    if (e.metric_diff)
        metric_diff_section(d, *e.metric_diff);
    if (e.roofline)
        roofline_section(d, *e.roofline);
    if (e.kernels)
        kernels_section(d, *e.kernels);

    d.h(3, "Verdict");
    if (e.sample.present) {
        d.p(fmt::format(
            "Sample verdict: {}{}.", e.sample.word, e.sample.rule ? fmt::format(" (rule {})", *e.sample.rule) : ""));
        d.list(e.sample.reasons);
        std::vector<std::vector<std::string>> prof;
        if (e.sample.profile.is_object())
            flatten(e.sample.profile, "", prof);
        if (!prof.empty())
            d.table({"profile", "value"}, prof);
    } else {
        d.p("Not judged.");
    }
    if (e.final.present) {
        d.p(fmt::format("Final verdict after the study-level rules: {}.", e.final.word));
        d.list(e.final.reasons);
        d.h(3, "Predicted vs measured");
        d.table({"", "delta %"},
            {{"predicted", opt(e.final.predicted_delta_pct)}, {"measured", opt(e.final.measured_delta_pct)},
                {"flags", e.final.flags.empty() ? "none" : fmt::format("{}", fmt::join(e.final.flags, ", "))}});
        d.h(3, "Guards");
        std::vector<std::vector<std::string>> g;
        for (const auto& x : e.final.guards)
            g.push_back({x.metric, x.verdict.empty() ? "-" : x.verdict, opt(x.delta_pct), opt(x.sigma_pct),
                ci(x.ci95_delta_pct), x.assessed ? (x.regressed ? "REGRESSED" : "holds") : "not assessed"});
        if (g.empty())
            d.p("No guard metric.");
        else
            d.table({"guard", "verdict", "delta %", "sigma %", "95% CI", "outcome"}, g);
        d.p(e.final.tradeoff_named ? (*e.final.tradeoff_named ? "A tradeoff with a named sacrifice is recorded."
                                                              : "No tradeoff with a named sacrifice is recorded.")
                                   : "");
    }

    d.h(3, "Split-half stability check");
    if (e.split_half && e.split_half->splits > 0) {
        d.p(fmt::format("{} of {} splits of the baseline against itself gave a false alarm ({} %).",
            e.split_half->false_alarms, e.split_half->splits, num(100 * e.split_half->false_alarm_rate())));
        d.p("Split verdicts: " + fmt::format("{}", fmt::join(e.split_half->verdicts, ", ")) + ".");
        d.p(e.split_half->method);
    } else {
        d.p("Not run.");
    }
}

// A grid group: its heat map, every cell's numbers and verdict, and the interaction as stored.
void grid_section(Doc& d, const GridGroupReport& g)
{
    d.h(2, fmt::format("Grid {}: {} x {}", g.id, g.row_variable, g.col_variable));
    d.p(fmt::format("Levels of {}: {}; of {}: {}. Each cell but the baseline cell is its own interleaved A/B against "
                    "the baseline cell, judged on {}.",
        g.row_variable, fmt::join(g.row_levels, ", "), g.col_variable, fmt::join(g.col_levels, ", "),
        g.metric.empty() ? std::string("its metric") : g.metric));
    if (const Chart c = grid_chart(g); !c.svg.empty())
        d.chart(c);
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : g.cells) {
        if (c.baseline)
            continue;
        rows.push_back({c.label,
            fmt::format(
                "{} = {}, {} = {}", g.row_variable, g.row_levels.at(c.row), g.col_variable, g.col_levels.at(c.col)),
            c.experiment_id.empty() ? "-" : c.experiment_id, fmt::format("{}/{}", c.n_baseline, c.n_treatment),
            opt(c.delta_pct), ci(c.ci95_delta_pct), opt(c.sigma_pct), c.verdict.empty() ? c.status : c.verdict});
    }
    d.table({"cell", "levels", "experiment", "n", "delta %", "95% CI", "sigma %", "verdict"}, rows);
    if (const auto& in = g.interaction) {
        d.p(fmt::format("Interaction{}: {}", in->flagged ? " (flagged: the effects do not add up)" : "",
            in->summary.empty() ? std::string("stored without a summary") : in->summary));
    } else {
        d.p(g.pending.empty() ? "Interaction: not computed."
                              : fmt::format("Interaction: not computed until every cell is judged (pending: {}).",
                                  fmt::join(g.pending, ", ")));
    }
}

// The real A/A of every experiment that has one, and the devices' A/A history: how often the same
// configuration was called different at the n these verdicts used. Said plainly when there is none.
void aa_section(Doc& d, const Report& r)
{
    d.h(2, "A/A: false alarms at the A/B's n");
    if (!has_aa_arm(r)) {
        d.p("This study has no A/A arm: no experiment ran the baseline's configuration again as its own arm, so how "
            "often a verdict here would call the same code different, at its n, was not measured (kwb new --aa-arm, "
            "or the A/A box of the A/B or grid page, adds one). The split-half stability check, where run, halves "
            "the baseline only.");
    } else {
        std::vector<std::vector<std::string>> rows;
        for (const auto& e : r.experiments) {
            if (!e.aa)
                continue;
            const AaReport& a = *e.aa;
            const std::string ci95 = a.ci95_delta_pct
                ? fmt::format("[{}, {}] %", num((*a.ci95_delta_pct)[0]), num((*a.ci95_delta_pct)[1]))
                : std::string("-");
            rows.push_back({a.grid.empty() ? e.id : fmt::format("{} (the A/A of {})", e.id, a.grid), a.arm,
                a.judged ? std::to_string(a.n) : "-", a.judged ? a.word : "no verdict yet", opt(a.delta_pct, " %"),
                ci95, a.judged ? (a.false_alarm ? "yes" : "no") : "-"});
        }
        d.table({"experiment", "A/A arm", "n per arm", "verdict", "delta", "95% CI", "false alarm"}, rows);
        d.p("Each A/A arm ran the baseline's configuration again, interleaved with the A/B in the same blocks, and "
            "was judged against the baseline with the A/B's profile: any verdict but NOISE is a false alarm.");
    }
    const AaHistoryReport& h = r.aa_history;
    if (!h.attached) {
        d.p("The per-device A/A history was not attached to this report.");
    } else if (!h.problem.empty()) {
        d.p("The per-device A/A history could not be read: " + h.problem);
    } else {
        std::vector<std::string> lines;
        for (const auto& rate : h.rates)
            lines.push_back(describe(rate));
        for (const auto& model : h.devices)
            if (std::none_of(
                    h.rates.begin(), h.rates.end(), [&](const AaFalseAlarmRate& x) { return x.device == model; }))
                lines.push_back(describe_aa_history(std::nullopt, model));
        if (lines.empty())
            lines.push_back("no experiment has run on a device yet");
        d.p(fmt::format("Per-device A/A history (every A/A run recorded on this machine, {}): the false-alarm rate "
                        "with its exact Clopper-Pearson 95% interval:",
            h.source.empty() ? std::string("its state directory") : h.source));
        d.list(std::move(lines));
    }
}

void ledger_section(Doc& d, const Report& r)
{
    const bool kill = r.final_word == "KILL";
    d.h(2,
        kill                            ? "Attempt ledger: the errors entry"
            : r.final_word == "LICENSE" ? "Attempt ledger: the wins entry"
                                        : "Attempt ledger");
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : r.ledger)
        rows.push_back({l.experiment_id, l.at, l.verdict, l.summary,
            l.hypotheses.empty() ? "none recorded" : fmt::format("{}", fmt::join(l.hypotheses, "; "))});
    if (rows.empty())
        d.p("No attempt recorded.");
    else
        d.table({"experiment", "at", "verdict", "summary", "hypotheses still standing"}, rows);
    if (kill)
        d.p("Killed: the change is not worth its cost as measured. The hypotheses above are what is left to try.");
}

void provenance_section(Doc& d, const Report& r)
{
    d.h(2, "Provenance");
    const auto& p = r.provenance;
    std::vector<std::vector<std::string>> rows {{"workbench version", p.workbench_version},
        {"report generated", p.generated_at}, {"study file", p.study_path.empty() ? "-" : p.study_path},
        {"study SHA-256", p.study_sha256.empty() ? "-" : p.study_sha256},
        {"study schema version", std::to_string(r.schema_version)},
        {"study created / modified", fmt::format("{} / {}", r.created_at, r.modified_at)}};
    for (const auto& e : r.experiments)
        rows.push_back({"device of " + e.id,
            e.device.empty() ? r.hardware.device_in_use
                             : fmt::format("{} {}{}", e.device.kind, e.device.model,
                                 e.device.driver.empty() ? "" : ", driver " + e.device.driver)});
    for (const auto& dev : r.hardware.devices)
        for (const auto& [k, v] : dev.items())
            if (k.find("driver") != std::string::npos || k.find("cuda") != std::string::npos
                || k.find("clock") != std::string::npos)
                rows.push_back({fmt::format("{}: {}", dev.value("name", std::string("device")), k), value_text(v)});
    rows.push_back({"command line", p.command_line.empty() ? "-" : p.command_line});
    rows.push_back(
        {"to reproduce", p.study_path.empty() ? "kwb run STUDY" : "kwb run " + p.study_path + " --new-attempt"});
    d.table({"", "value"}, rows);
}

} // namespace

std::vector<Block> document_of(const Report& r)
{
    Doc d;
    d.h(1, "Verdict report: " + (r.name.empty() ? std::string("unnamed study") : r.name));
    d.verdict(r.final_word.empty() ? "NOT JUDGED" : r.final_word,
        r.final_word.empty() ? std::vector<std::string> {"no experiment of this study has a verdict"}
                             : std::vector<std::string> {
                                 fmt::format("final verdict of {}, its last judged experiment", r.final_experiment),
                                 target_line(r.target)});
    d.p(r.description);
    study_sections(d, r);
    for (const auto& e : r.experiments)
        experiment_sections(d, e);
    if (!r.kernels_problem.empty())
        d.p("The kernels' file could not be read: " + r.kernels_problem + ".");
    for (const auto& g : r.grids)
        grid_section(d, g);
    aa_section(d, r);
    ledger_section(d, r);
    provenance_section(d, r);
    return std::move(d.blocks);
}

} // namespace kwb::report
