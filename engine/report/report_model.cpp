// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/report_model.h"

#include "report/aa_report.h"
#include "report/sha256.h"
#include "stats/effect.h"
#include "study/arm_roles.h"
#include "study/study_file.h"
#include "util/atomic_file.h"
#include "util/json_reader.h"
#include "verdict/profile.h"
#include "verdict/runs_needed.h"

#include <algorithm>
#include <fmt/format.h>
#include <iterator>

namespace kwb::report {
namespace {

// The profile the experiment was judged under: the stored one, else the experiment's own.
Profile profile_of(const Study& study, const Experiment& e, const StoredVerdict& sample)
{
    if (sample.profile.is_object()) {
        try {
            return profile_from_json(sample.profile);
        } catch (const std::exception&) {
            // fall through to the experiment's settings
        }
    }
    const Direction d = study.target.metric == e.metric ? study.target.direction : Direction::Lower;
    try {
        return apply_overrides(make_profile(e.profile, d), e.profile_overrides);
    } catch (const std::exception&) {
        return make_profile("generic", d);
    }
}

void widen(std::optional<Range>& r, const std::optional<double>& v)
{
    if (!v)
        return;
    if (!r)
        r = Range {*v, *v};
    r->min = std::min(r->min, *v);
    r->max = std::max(r->max, *v);
}

// What the run's own records say about the matched controls: each fact measured, not ticked.
std::vector<ControlRow> measured_controls(const Experiment& e, const ExperimentReport& r)
{
    std::vector<ControlRow> rows;
    for (const auto& [name, checked] : e.controls.checklist)
        rows.push_back({name, checked, ""});
    auto add = [&rows](std::string name, std::string fact) {
        rows.push_back({std::move(name), true, std::move(fact)});
    };
    if (!e.samples.empty()) {
        add("interleaved order",
            fmt::format(
                "{} order, {} repetitions recorded with their positions", to_string(e.plan.order), e.samples.size()));
        if (!e.device.empty())
            add("same device",
                fmt::format("every repetition on {} {}{}", e.device.kind, e.device.model,
                    e.device.uuid.empty() ? "" : " (" + e.device.uuid + ")"));
        if (e.launches_per_rep)
            add("same repetition length", fmt::format("both arms ran {} launches per repetition", *e.launches_per_rep));
        if (e.shared_buffers) // the arms' kernels on the same memory: no effect of where a buffer sits
            rows.push_back({"same device buffers", *e.shared_buffers,
                *e.shared_buffers ? "every arm ran on one set of device buffers"
                                  : "each arm ran on device buffers of its own"});
        int throttled = 0;
        for (const auto& a : r.arms)
            throttled += a.throttled;
        if (r.clock_mhz)
            add("no throttling",
                throttled == 0
                    ? fmt::format("no judged repetition throttled; clock {}-{} MHz", r.clock_mhz->min, r.clock_mhz->max)
                    : fmt::format("{} judged repetitions throttled", throttled));
        bool all_checked = !r.arms.empty();
        for (const auto& a : r.arms)
            all_checked = all_checked && a.check.has_value();
        if (all_checked) {
            bool ok = true;
            for (const auto& a : r.arms)
                ok = ok && a.check->ok;
            add("same output (correctness)",
                ok ? "every arm matched its reference" : "an arm failed its correctness check");
        }
    }
    return rows;
}

ExperimentReport experiment_report(const Study& study, const Experiment& e)
{
    ExperimentReport r;
    r.id = e.id;
    r.kind = e.kind;
    r.workload = e.workload;
    r.backend = e.backend;
    r.metric = e.metric;
    r.unit = study.target.metric == e.metric ? study.target.unit : std::string();
    r.status = std::string(to_string(e.status));
    r.stop_reason = e.stop_reason;
    r.error = e.error;
    r.plan = e.plan;
    r.launches_per_rep = e.launches_per_rep;
    r.device = e.device;
    r.limitations = e.limitations;
    r.missing_gates = e.missing_gates;
    r.guard_metrics = e.guards;
    r.acknowledged_multi_variable = e.acknowledged_multi_variable;
    r.controls_notes = e.controls.notes;
    r.sample = sample_verdict_of(e);
    r.final = final_verdict_of(e);
    if (e.verdict && e.final_verdict)
        r.story = verdict_story(*e.final_verdict, *e.verdict);
    r.split_half = e.split_half;
    r.aa = aa_report(study, e);
    r.lanes = e.lanes;
    r.samples = e.samples;

    const Profile profile = profile_of(study, e, r.sample);
    r.direction = profile.direction;
    r.profile_name = profile.name;
    r.delta_lines = delta_lines(profile);
    r.noise_k = profile.noise_k;

    if (const AbArms arms = ab_arms(e)) {
        r.diff = diff_arm_pair(*arms.baseline, *arms.treatment);
        r.command_arms = arms.baseline->command && arms.treatment->command;
        r.metric_diff = metric_diff(e, arms.baseline->name, arms.treatment->name, r.noise_k);
        r.roofline = study_roofline(study, e, r.metric_diff);
    }

    for (const auto& arm : e.arms) {
        ArmReport a;
        a.name = arm.name;
        if (arm.command)
            a.command = arm.command->cmd;
        a.params = arm.params;
        a.check = arm.check;
        a.values = judged_values(e, arm.name, e.metric);
        if (!a.values.empty()) {
            a.summary = stats::summarize(a.values);
            a.bimodality = stats::assess_bimodality(a.values);
        }
        for (const auto& s : e.samples) {
            if (s.arm != arm.name)
                continue;
            a.warmups += s.warmup ? 1 : 0;
            a.discarded += s.discarded ? 1 : 0;
            a.throttled += (s.throttled && !s.warmup && !s.discarded) ? 1 : 0;
        }
        r.arms.push_back(std::move(a));
    }
    if (r.arms.size() >= 2 && !r.arms[0].values.empty() && !r.arms[1].values.empty()) {
        const bool paired = judged_paired(e) && r.arms[0].values.size() == r.arms[1].values.size();
        r.evidence = collect_evidence(r.arms[0].values, r.arms[1].values, r.direction, paired);
    }
    for (const auto& s : e.samples) {
        if (s.warmup || s.discarded)
            continue;
        widen(r.clock_mhz, s.clock_mhz);
        widen(r.temperature_c, s.temperature_c);
        widen(r.power_w, s.power_w);
        if (!s.started_at.empty()) {
            if (r.first_sample_at.empty() || s.started_at < r.first_sample_at)
                r.first_sample_at = s.started_at;
            if (s.started_at > r.last_sample_at)
                r.last_sample_at = s.started_at;
        }
    }
    r.controls = measured_controls(e, r);
    return r;
}

} // namespace

Report build_report(const Study& study, Provenance provenance)
{
    Report rep;
    rep.name = study.name;
    rep.description = study.description;
    rep.created_at = study.created_at;
    rep.modified_at = study.modified_at;
    rep.schema_version = study.schema_version;
    rep.target = study.target;
    rep.hardware = study.hardware;
    rep.binding = study.binding;
    rep.prediction = study.prediction;
    rep.tradeoffs = study.tradeoffs;
    rep.ledger = study.ledger;
    if (provenance.workbench_version.empty())
        provenance.workbench_version = KWB_VERSION;
    if (provenance.generated_at.empty())
        provenance.generated_at = utc_now_iso8601();
    rep.provenance = std::move(provenance);
    for (const auto& e : study.experiments) {
        rep.experiments.push_back(experiment_report(study, e));
        if (rep.experiments.back().final.present) {
            rep.final_word = rep.experiments.back().final.word;
            rep.final_experiment = e.id;
        }
    }
    for (const auto& g : study.grids)
        rep.grids.push_back(grid_group_report(study, g));
    // The kernels' code and resources live beside the study (study/kernel_inventory.h).
    if (!rep.provenance.study_path.empty()) {
        try {
            const KernelInventories kernels = load_kernel_inventories(rep.provenance.study_path);
            for (size_t i = 0; i < study.experiments.size(); ++i)
                rep.experiments[i].kernels = kernels_report(kernels, study, study.experiments[i]);
        } catch (const FormatError& e) {
            rep.kernels_problem = e.what();
        }
    }
    return rep;
}

Report report_from_file(const std::string& path, const std::string& command_line)
{
    // Read as load_study reads (util/atomic_file.h): a directory or an unreadable file is one line
    // naming it, a FIFO does not block the open, and the size limit holds.
    std::string bytes;
    try {
        bytes = read_file(path);
    } catch (const std::exception& e) {
        throw StudyLoadError(e.what());
    }
    const Study study = parse_study(bytes, path);
    Provenance p;
    p.study_path = path;
    p.study_sha256 = sha256_hex(bytes);
    p.command_line = command_line;
    return build_report(study, std::move(p));
}

} // namespace kwb::report
