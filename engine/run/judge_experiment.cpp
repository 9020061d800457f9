// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/judge_experiment.h"

#include "run/continue_run.h"
#include "run/speed_of_light_input.h"
#include "run/split_half_check.h"
#include "study/arm_roles.h"
#include "study/machine_load.h"
#include "study/study_file.h"
#include "verdict/aa_verdict.h"
#include "verdict/cycles.h"
#include "verdict/gpu_sharing.h"
#include "workloads/command/command_controls.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace kwb {
namespace {

const std::string& baseline_name(const Experiment& e)
{
    const AbArms arms = ab_arms(e);
    if (!arms.baseline)
        throw std::out_of_range("the experiment has no baseline arm");
    return arms.baseline->name;
}
const std::string& treatment_name(const Experiment& e)
{
    const AbArms arms = ab_arms(e);
    if (!arms.treatment)
        throw std::out_of_range("the experiment has no treatment arm");
    return arms.treatment->name;
}

// Judged samples of one arm that carry `metric`, in run order.
std::vector<const Sample*> judged(const Experiment& e, const std::string& arm, const std::string& metric)
{
    std::vector<const Sample*> out;
    for (const auto& s : e.samples)
        if (s.arm == arm && !s.warmup && !s.discarded && s.metrics.count(metric))
            out.push_back(&s);
    std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->position < b->position; });
    return out;
}

// The verdict engine takes only finite, positive values; a guard metric may hold others (a
// counter that read zero). They are left out rather than failing the verdict.
std::vector<double> usable(std::vector<double> v)
{
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x) || x <= 0; }), v.end());
    return v;
}

std::string number(double x)
{
    return fmt::format("{:.4g}", x);
}

} // namespace

Direction metric_direction(const Study& study, const std::vector<MetricSpec>& metrics, const std::string& metric)
{
    for (const auto& m : metrics)
        if (m.name == metric)
            return m.direction;
    if (study.target.metric == metric)
        return study.target.direction;
    return Direction::Lower;
}

Profile experiment_profile(const Experiment& experiment, Direction direction)
{
    return apply_overrides(make_profile(experiment.profile, direction), experiment.profile_overrides);
}

bool pairing_applies(const Experiment& e)
{
    if (ab_arm_count(e) != 2)
        return false;
    const auto b = judged(e, baseline_name(e), e.metric);
    const auto t = judged(e, treatment_name(e), e.metric);
    if (b.empty() || b.size() != t.size())
        return false;
    const int arms = static_cast<int>(e.arms.size());
    for (size_t i = 0; i < b.size(); ++i)
        if (b[i]->position / arms != t[i]->position / arms)
            return false;
    return true;
}

bool judgeable(const Experiment& e)
{
    return ab_arm_count(e) == 2 && !usable(judged_values(e, baseline_name(e), e.metric)).empty()
        && !usable(judged_values(e, treatment_name(e), e.metric)).empty();
}

SampleVerdict judge_target(const Experiment& e, const Profile& profile)
{
    const auto b = usable(judged_values(e, baseline_name(e), e.metric));
    const auto t = usable(judged_values(e, treatment_name(e), e.metric));
    const bool paired = pairing_applies(e) && b.size() == t.size();
    return judge_samples(b, t, profile, paired);
}

ArmValues target_values(const Experiment& e)
{
    if (e.arms.size() < 2)
        return {};
    ArmValues v {usable(judged_values(e, baseline_name(e), e.metric)),
        usable(judged_values(e, treatment_name(e), e.metric)), false};
    v.paired = pairing_applies(e) && v.baseline.size() == v.treatment.size();
    return v;
}

void judge_experiment(Study& study, Experiment& e, const std::vector<MetricSpec>& metrics)
{
    if (!judgeable(e))
        return;
    const Direction direction = metric_direction(study, metrics, e.metric);
    const Profile profile = experiment_profile(e, direction);
    const SampleVerdict sample = judge_target(e, profile);

    e.split_half.reset();
    if (e.plan.split_halves > 0) {
        const auto baseline = usable(judged_values(e, baseline_name(e), e.metric));
        e.split_half = check_split_half(baseline, e.plan.split_halves, profile, e.plan.seed);
        if (!e.split_half)
            e.missing_gates.push_back(
                fmt::format("split-half stability check: the baseline has {} judged runs; {} splits need at "
                            "least {} (2 x min_n)",
                    baseline.size(), e.plan.split_halves, 2 * profile.min_n));
    }

    e.aa_verdict = judge_aa_arm(e, profile);

    StudyRulesInput input;
    for (const auto& g : e.guards)
        input.guards.push_back({g, metric_direction(study, metrics, g), usable(judged_values(e, baseline_name(e), g)),
            usable(judged_values(e, treatment_name(e), g)), 0.0});
    input.tradeoffs = study.tradeoffs;
    input.predicted_delta_pct = study.prediction.predicted_delta_pct;
    input.split_half = e.split_half;
    input.gpu_sharing = gpu_sharing_evidence(e);
    input.cycles = cycles_arms(e, direction);
    FinalVerdict final = apply_study_rules(sample, input, profile);
    // Last of the study-level rules: an arm faster than the hardware measured nothing.
    apply_speed_of_light(final, judge_speed_of_light(speed_of_light_input(study, e)));
    if (const auto finding = command::command_control_finding(e)) // command arms: fingerprints, failed requests
        command::apply_control_finding(final, *finding);
    for (auto& note : command::command_control_notes(e)) // declared differences: shown, not blockers
        final.reasons.push_back(std::move(note));
    // An unstable run (rule 2) names what the samplers saw rather than generic advice.
    const MachineLoad load = machine_load(e);
    if (sample.word == VerdictWord::Inconclusive && sample.rule == 2)
        for (auto& r : busy_machine_reasons(load))
            final.reasons.push_back(std::move(r));
    for (auto& r : continuation_reasons(e)) // runs added to a finished experiment (run/continue_run.h)
        final.reasons.push_back(std::move(r));
    record_run_measured_controls(e);
    if (e.aa_verdict) // cited beside the A/B's word, never changing it
        final.reasons.push_back(aa_summary(*e.aa_verdict)
            + (aa_false_alarm(*e.aa_verdict)
                    ? " (a false alarm: the same configuration was called different; trust this verdict less)"
                    : ""));
    e.verdict = sample;
    e.final_verdict = final;

    LedgerEntry entry;
    entry.experiment_id = e.id;
    entry.at = utc_now_iso8601();
    entry.verdict = std::string(to_string(final.word));
    const auto num = [](const std::optional<double>& x) { return x ? number(*x) : std::string("n/a"); };
    const std::string unit
        = study.target.metric == e.metric && !study.target.unit.empty() ? " " + study.target.unit : "";
    entry.summary = fmt::format("{}: {}{} -> {}{} (delta {}%, sigma {}%, n = {}/{}); sample verdict {}, final {}",
        e.metric, num(sample.baseline.mean), unit, num(sample.treatment.mean), unit, num(sample.delta_pct),
        num(sample.sigma_pct), sample.n_baseline(), sample.n_treatment(), to_string(sample.word),
        to_string(final.word));
    auto old = std::find_if(
        study.ledger.begin(), study.ledger.end(), [&](const LedgerEntry& l) { return l.experiment_id == e.id; });
    if (old != study.ledger.end()) {
        entry.hypotheses = old->hypotheses;
        *old = std::move(entry);
    } else {
        study.ledger.push_back(std::move(entry));
    }
}

} // namespace kwb
