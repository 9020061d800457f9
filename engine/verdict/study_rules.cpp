// SPDX-License-Identifier: GPL-3.0-or-later
// The study-level rules of spec/verdict.md, applied after the sample verdict: guards, the
// tradeoff gate, the prediction check.
//
// Why they exist: a faster TTFT bought with a slower ITL is not a win (guards); a license that
// names no sacrifice has not looked at what it costs (tradeoffs); a measurement far from what the
// model predicted means the model of the kernel is wrong even when the verdict is right
// (prediction check: a flag to investigate, never a verdict change).
#include "study/gates.h"
#include "verdict/cycles.h"
#include "verdict/evidence.h"
#include "verdict/gpu_sharing.h"
#include "verdict/profile.h"
#include "verdict/regression.h"
#include "verdict/verdict.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace kwb {
namespace {

using wording::num;

GuardVerdict judge_guard(const GuardArms& g, const Profile& target_profile, std::string& reason)
{
    Profile p = target_profile;
    p.direction = g.direction;
    GuardVerdict out;
    out.metric = g.metric;
    out.direction = g.direction;
    out.tolerance_pct = g.tolerance_pct;
    out.n_baseline = g.baseline.size();
    out.n_treatment = g.treatment.size();
    if (g.baseline.empty() || g.treatment.empty()) {
        reason = fmt::format("guard {} not assessed: no samples", g.metric);
        return out;
    }
    const SampleVerdict v = judge_samples(g.baseline, g.treatment, p, false);
    out.judged = true;
    const RegressionCall call = call_regression(v, p, g.tolerance_pct);
    out.assessed = call.assessed;
    out.regressed = call.regressed;
    const double delta = call.delta_pct;
    const double sigma = call.sigma_pct;
    out.word = v.word;
    out.delta_pct = v.delta_pct;
    out.sigma_pct = v.sigma_pct;
    out.ci95_delta_pct = v.ci95_delta_pct;
    out.reasons = v.reasons;
    if (!out.assessed)
        reason = fmt::format("guard {} not assessed: {}", g.metric, v.reasons.empty() ? "" : v.reasons.front());
    else if (out.regressed)
        reason = fmt::format("guard {} regressed: delta {}% is beyond its noise band ({} x sigma {}% = {}%) and "
                             "its tolerance of {}%",
            g.metric, num(delta), num(p.noise_k), num(sigma), num(p.noise_k * sigma), num(g.tolerance_pct));
    else
        reason = fmt::format("guard {} holds: delta {}% (sigma {}%, tolerance {}%)", g.metric, num(delta), num(sigma),
            num(g.tolerance_pct));
    return out;
}

} // namespace

FinalVerdict apply_study_rules(const SampleVerdict& sample, const StudyRulesInput& input, const Profile& profile)
{
    FinalVerdict f;
    f.word = sample.word;
    f.reasons = sample.reasons;
    f.sample_word = sample.word;
    f.sample_reasons = sample.reasons;
    f.profile = profile;

    // Guards: any regressed guard kills, whatever the target did.
    std::vector<std::string> regressed;
    for (const auto& g : input.guards) {
        std::string reason;
        f.guards.push_back(judge_guard(g, profile, reason));
        if (f.guards.back().regressed)
            regressed.push_back(g.metric);
        f.reasons.push_back(reason);
    }
    if (!regressed.empty()) {
        std::string names;
        for (const auto& m : regressed)
            names += (names.empty() ? "" : ", ") + m;
        f.word = VerdictWord::Kill;
        f.reasons.push_back(fmt::format("KILL: guard regressed ({}), whatever the target did", names));
    }

    // Tradeoff gate: a license must name what it gave up.
    f.tradeoff_named = tradeoff_named(input.tradeoffs);
    if (f.word == VerdictWord::License && !f.tradeoff_named) {
        f.word = VerdictWord::Inconclusive;
        f.reasons.push_back(tradeoff_gate_reason());
    }

    // Prediction check: flags only.
    f.predicted_delta_pct = input.predicted_delta_pct;
    f.measured_delta_pct = sample.delta_pct;
    if (input.predicted_delta_pct && sample.word != VerdictWord::Noise && sample.delta_pct) {
        const double m = *sample.delta_pct;
        const double pr = *input.predicted_delta_pct;
        if ((m > 0 && pr < 0) || (m < 0 && pr > 0)) {
            f.flags.push_back("sign mismatch");
            f.reasons.push_back(fmt::format(
                "prediction check: measured delta {}% and predicted {}% have opposite signs", num(m), num(pr)));
        }
        if (std::fabs(m) < std::fabs(pr) / 2 || std::fabs(m) > 2 * std::fabs(pr)) {
            f.flags.push_back("magnitude off");
            f.reasons.push_back(
                fmt::format("prediction check: measured |delta| {}% is {} the predicted {}%", num(std::fabs(m)),
                    std::fabs(m) < std::fabs(pr) / 2 ? "less than half of" : "more than twice", num(std::fabs(pr))));
        }
    }

    // Split-half stability check: how often the baseline's own halves disagree.
    if (input.split_half && input.split_half->splits > 0) {
        const auto& aa = *input.split_half;
        const double rate = static_cast<double>(aa.false_alarms) / aa.splits;
        f.reasons.push_back(fmt::format("split-half stability check: {} of {} splits gave a false alarm ({}%)",
            aa.false_alarms, aa.splits, num(100 * rate)));
        f.split_half = SplitHalfSummary {aa.splits, aa.false_alarms, rate};
    }

    if (input.cycles) // beside the wall-time verdict, never changing its word
        f.cycles = judge_cycles(*input.cycles, sample, profile, f.reasons);
    if (input.gpu_sharing) // last: a shared GPU voids whatever the rules above decided
        apply_gpu_sharing(f, *input.gpu_sharing);
    return f;
}

} // namespace kwb
