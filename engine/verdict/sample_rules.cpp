// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/sample_rules.h"

#include "verdict/profile.h"
#include "verdict/runs_needed.h"
#include "verdict/wording.h"

#include <cmath>
#include <stdexcept>

namespace kwb {
namespace {

using wording::num;

std::string modes_text(const char* arm, const stats::Bimodality& b)
{
    std::string modes;
    for (const auto& m : b.modes)
        modes += fmt::format("{}{}% of runs at {}", modes.empty() ? "" : " and ", num(100 * m.share), num(m.mean));
    return fmt::format("bimodal runs in the {}: {} (a gap of {}, {} times the pooled spread): find the cause or "
                       "characterise the modes before licensing",
        arm, modes, num(b.gap), b.pooled_sd > 0 ? num(b.gap / b.pooled_sd) : std::string("infinitely many"));
}

// Rules 5-7 of the generic and strict families (on delta%).
void decide_on_delta(const SampleEvidence& e, const Profile& p, double sigma, SampleDecision& d)
{
    const double delta = e.delta_pct;
    if (delta >= p.license_pct && sigma < p.max_sigma_pct) {
        d.rule = 5;
        const std::string base = fmt::format("delta {}% >= license {}% with sigma {}% < {}%", num(delta),
            num(p.license_pct), num(sigma), num(p.max_sigma_pct));
        if (rule_family(p) != "strict") {
            d.word = VerdictWord::License;
            d.reasons.push_back(base);
            return;
        }
        const auto& ci = e.ci95_delta_pct;
        const bool ci_ok = ci && (*ci)[0] >= p.kill_pct;
        const bool p_ok = e.p_welch && *e.p_welch < 0.05;
        const std::string ci_text = ci ? fmt::format("the 95% CI of delta [{}%, {}%] {} kill {}%", num((*ci)[0]),
                                        num((*ci)[1]), ci_ok ? "clears" : "reaches below", num(p.kill_pct))
                                       : std::string("the 95% CI of delta is undefined");
        const std::string p_text = e.p_welch
            ? fmt::format("Welch p = {} {} 0.05", wording::p_value(*e.p_welch), p_ok ? "<" : ">=")
            : std::string("Welch p is undefined (both arms constant)");
        if (ci_ok && p_ok) {
            d.word = VerdictWord::License;
            d.reasons.push_back(fmt::format("{}; {} and {}", base, ci_text, p_text));
        } else {
            d.word = VerdictWord::Inconclusive;
            d.strict_gate_failed = true;
            d.reasons.push_back(fmt::format(
                "not significant: {}, but {} and {} (the strict profile needs both)", base, ci_text, p_text));
        }
        return;
    }
    if (delta < p.kill_pct) {
        d.rule = 6;
        d.word = VerdictWord::Kill;
        d.reasons.push_back(fmt::format("delta {}% < kill {}%: {}", num(delta), num(p.kill_pct),
            delta < 0 ? "a real regression" : "too small to matter"));
        return;
    }
    d.rule = 7;
    d.word = VerdictWord::Inconclusive;
    if (delta < p.license_pct)
        d.reasons.push_back(fmt::format("grey zone: delta {}% is between kill {}% and license {}%", num(delta),
            num(p.kill_pct), num(p.license_pct)));
    else
        d.reasons.push_back(fmt::format("grey zone: delta {}% >= license {}% but sigma {}% is not below {}%",
            num(delta), num(p.license_pct), num(sigma), num(p.max_sigma_pct)));
}

// Rules 5-7 of the speedup family (on the speedup ratio).
void decide_on_speedup(const SampleEvidence& e, const Profile& p, double sigma, SampleDecision& d)
{
    const double s = e.speedup;
    if (s >= p.license_speedup && sigma < p.max_sigma_pct) {
        d.rule = 5;
        d.word = VerdictWord::License;
        d.reasons.push_back(fmt::format("speedup {}x >= license {}x with sigma {}% < {}%", num(s),
            num(p.license_speedup), num(sigma), num(p.max_sigma_pct)));
    } else if (s < p.kill_speedup) {
        d.rule = 6;
        d.word = VerdictWord::Kill;
        d.reasons.push_back(fmt::format("speedup {}x < kill {}x: {}", num(s), num(p.kill_speedup),
            s < 1 ? "a real regression" : "too small to matter"));
    } else {
        d.rule = 7;
        d.word = VerdictWord::Inconclusive;
        if (s < p.license_speedup)
            d.reasons.push_back(fmt::format("grey zone: speedup {}x is between kill {}x and license {}x", num(s),
                num(p.kill_speedup), num(p.license_speedup)));
        else
            d.reasons.push_back(fmt::format("grey zone: speedup {}x >= license {}x but sigma {}% is not below {}%",
                num(s), num(p.license_speedup), num(sigma), num(p.max_sigma_pct)));
    }
}

} // namespace

SampleDecision decide_sample(const SampleEvidence& e, const Profile& p)
{
    SampleDecision d;
    const auto nb = static_cast<long long>(e.baseline.n);
    const auto nt = static_cast<long long>(e.treatment.n);
    // Rule 1: enough runs.
    if (nb < p.min_n || nt < p.min_n) {
        d.rule = 1;
        d.word = VerdictWord::Inconclusive;
        d.reasons.push_back(fmt::format("not enough runs: the baseline has {}, the treatment {}; the profile needs {} "
                                        "in each arm",
            nb, nt, p.min_n));
        return d;
    }
    // Rule 2: a stable workload. With min_n lowered to 1 an arm of one run has no spread at all:
    // stability cannot be assessed, which is no better than unstable.
    if (!e.sigma_pct) {
        d.rule = 2;
        d.word = VerdictWord::Inconclusive;
        d.reasons.push_back("stability not assessed: an arm has a single run, so sigma is undefined");
        return d;
    }
    const double sigma = *e.sigma_pct;
    if (sigma > p.unstable_sigma_pct) {
        d.rule = 2;
        d.word = VerdictWord::Inconclusive;
        d.reasons.push_back(fmt::format("workload not stable: sigma {}% > {}% (raise duration or warm-up, check "
                                        "throttling)",
            num(sigma), num(p.unstable_sigma_pct)));
        return d;
    }
    // Rule 3: bimodal arms.
    const bool bim_b = e.bimodal_baseline.bimodal.value_or(false);
    const bool bim_t = e.bimodal_treatment.bimodal.value_or(false);
    if (bim_b || bim_t) {
        d.rule = 3;
        d.word = VerdictWord::Inconclusive;
        if (bim_b)
            d.reasons.push_back(modes_text("baseline", e.bimodal_baseline));
        if (bim_t)
            d.reasons.push_back(modes_text("treatment", e.bimodal_treatment));
        return d;
    }
    // Rule 4: within the noise band.
    if (std::fabs(e.delta_pct) <= p.noise_k * sigma) {
        d.rule = 4;
        d.word = VerdictWord::Noise;
        d.reasons.push_back(fmt::format("delta {}% is within the noise band: |delta| <= {} x sigma {}% = {}%",
            num(e.delta_pct), num(p.noise_k), num(sigma), num(p.noise_k * sigma)));
        return d;
    }
    // Rules 5-7.
    if (rule_family(p) == "speedup")
        decide_on_speedup(e, p, sigma, d);
    else
        decide_on_delta(e, p, sigma, d);
    return d;
}

namespace {

std::optional<double> finite(double x)
{
    return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

std::optional<double> finite(const std::optional<double>& x)
{
    return x ? finite(*x) : std::nullopt;
}

std::optional<DeltaInterval> finite(const std::optional<stats::Interval>& ci)
{
    if (!ci || !std::isfinite((*ci)[0]) || !std::isfinite((*ci)[1]))
        return std::nullopt;
    return DeltaInterval {(*ci)[0], (*ci)[1]};
}

ArmStats arm_stats(const stats::ArmSummary& arm, const stats::Bimodality& bimodality)
{
    ArmStats a;
    a.n = arm.n;
    a.mean = finite(arm.mean);
    a.median = finite(arm.median);
    a.stddev = finite(arm.stddev);
    a.cv_pct = finite(arm.cv_pct);
    a.min = finite(arm.min);
    a.max = finite(arm.max);
    a.p50 = finite(arm.p50);
    a.p90 = finite(arm.p90);
    a.p99 = finite(arm.p99);
    a.outliers_mild = static_cast<int>(arm.outliers.mild);
    a.outliers_extreme = static_cast<int>(arm.outliers.extreme);
    if (bimodality.bimodal.value_or(false)) {
        a.modes.emplace();
        for (const auto& m : bimodality.modes)
            a.modes->push_back({m.share, finite(m.mean)});
    }
    return a;
}

} // namespace

SampleVerdict make_sample_verdict(const SampleEvidence& e, SampleDecision d, const Profile& p)
{
    SampleVerdict v;
    v.word = d.word;
    v.reasons = std::move(d.reasons);
    v.rule = d.rule;
    v.delta_pct = finite(e.delta_pct);
    v.sigma_pct = finite(e.sigma_pct);
    v.speedup = finite(e.speedup);
    v.ci95_delta_pct = finite(e.ci95_delta_pct);
    v.p_welch = finite(e.p_welch);
    v.p_mannwhitney = finite(e.mannwhitney.p);
    v.u_mannwhitney = finite(e.mannwhitney.u1);
    v.mannwhitney_method = std::string(stats::to_string(e.mannwhitney.method));
    v.bimodal_baseline = e.bimodal_baseline.bimodal;
    v.bimodal_treatment = e.bimodal_treatment.bimodal;
    if (e.paired)
        v.paired = PairedStats {e.paired->n_pairs, finite(e.paired->mean_delta_pct), finite(e.paired->ci95_delta_pct)};
    v.baseline = arm_stats(e.baseline, e.bimodal_baseline);
    v.treatment = arm_stats(e.treatment, e.bimodal_treatment);
    v.profile = p;
    if (e.ci95_delta_pct) {
        const RunsNeeded more = runs_needed_for_ci(
            e.delta_pct, *e.ci95_delta_pct, std::min(e.baseline.n, e.treatment.n), delta_thresholds(p));
        v.runs_needed_per_arm = more.per_arm;
        v.runs_needed_threshold_pct = finite(more.threshold_pct);
    }
    return v;
}

nlohmann::json sample_verdict_json(const SampleEvidence& e, const SampleDecision& d, const Profile& p)
{
    return to_json(make_sample_verdict(e, d, p));
}

SampleVerdict judge_samples(
    const std::vector<double>& baseline, const std::vector<double>& treatment, const Profile& profile, bool paired)
{
    if (baseline.empty() || treatment.empty())
        throw std::invalid_argument("judge_samples: an arm has no values");
    if (paired && baseline.size() != treatment.size())
        throw std::invalid_argument("judge_samples: paired arms need equal counts");
    const SampleEvidence e = collect_evidence(baseline, treatment, profile.direction, paired);
    return make_sample_verdict(e, decide_sample(e, profile), profile);
}

} // namespace kwb
