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
            d.word = "LICENSE";
            d.reasons.push_back(base);
            return;
        }
        const auto& ci = e.ci95_delta_pct;
        const bool ci_ok = ci && (*ci)[0] >= p.kill_pct;
        const bool p_ok = e.p_welch && *e.p_welch < 0.05;
        const std::string ci_text = ci ? fmt::format("the 95% CI of delta [{}%, {}%] {} kill {}%", num((*ci)[0]),
                                                     num((*ci)[1]), ci_ok ? "clears" : "reaches below", num(p.kill_pct))
                                       : std::string("the 95% CI of delta is undefined");
        const std::string p_text = e.p_welch ? fmt::format("Welch p = {} {} 0.05", wording::p_value(*e.p_welch),
                                                           p_ok ? "<" : ">=")
                                             : std::string("Welch p is undefined (both arms constant)");
        if (ci_ok && p_ok) {
            d.word = "LICENSE";
            d.reasons.push_back(fmt::format("{}; {} and {}", base, ci_text, p_text));
        } else {
            d.word = "INCONCLUSIVE";
            d.strict_gate_failed = true;
            d.reasons.push_back(fmt::format("not significant: {}, but {} and {} (the strict profile needs both)", base,
                                            ci_text, p_text));
        }
        return;
    }
    if (delta < p.kill_pct) {
        d.rule = 6;
        d.word = "KILL";
        d.reasons.push_back(fmt::format("delta {}% < kill {}%: {}", num(delta), num(p.kill_pct),
                                        delta < 0 ? "a real regression" : "too small to matter"));
        return;
    }
    d.rule = 7;
    d.word = "INCONCLUSIVE";
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
        d.word = "LICENSE";
        d.reasons.push_back(fmt::format("speedup {}x >= license {}x with sigma {}% < {}%", num(s),
                                        num(p.license_speedup), num(sigma), num(p.max_sigma_pct)));
    } else if (s < p.kill_speedup) {
        d.rule = 6;
        d.word = "KILL";
        d.reasons.push_back(fmt::format("speedup {}x < kill {}x: {}", num(s), num(p.kill_speedup),
                                        s < 1 ? "a real regression" : "too small to matter"));
    } else {
        d.rule = 7;
        d.word = "INCONCLUSIVE";
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
        d.word = "INCONCLUSIVE";
        d.reasons.push_back(fmt::format("not enough runs: the baseline has {}, the treatment {}; the profile needs {} "
                                        "in each arm",
                                        nb, nt, p.min_n));
        return d;
    }
    // Rule 2: a stable workload. With min_n lowered to 1 an arm of one run has no spread at all:
    // stability cannot be assessed, which is no better than unstable.
    if (!e.sigma_pct) {
        d.rule = 2;
        d.word = "INCONCLUSIVE";
        d.reasons.push_back("stability not assessed: an arm has a single run, so sigma is undefined");
        return d;
    }
    const double sigma = *e.sigma_pct;
    if (sigma > p.unstable_sigma_pct) {
        d.rule = 2;
        d.word = "INCONCLUSIVE";
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
        d.word = "INCONCLUSIVE";
        if (bim_b)
            d.reasons.push_back(modes_text("baseline", e.bimodal_baseline));
        if (bim_t)
            d.reasons.push_back(modes_text("treatment", e.bimodal_treatment));
        return d;
    }
    // Rule 4: within the noise band.
    if (std::fabs(e.delta_pct) <= p.noise_k * sigma) {
        d.rule = 4;
        d.word = "NOISE";
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

nlohmann::json sample_verdict_json(const SampleEvidence& e, const SampleDecision& d, const Profile& p)
{
    nlohmann::json j;
    j["verdict"] = d.word;
    j["reasons"] = d.reasons;
    j["delta_pct"] = number_or_null(e.delta_pct);
    j["sigma_pct"] = number_or_null(e.sigma_pct);
    j["speedup"] = number_or_null(e.speedup);
    j["n_baseline"] = e.baseline.n;
    j["n_treatment"] = e.treatment.n;
    j["mean_baseline"] = number_or_null(e.baseline.mean);
    j["mean_treatment"] = number_or_null(e.treatment.mean);
    j["cv_baseline_pct"] = number_or_null(e.baseline.cv_pct);
    j["cv_treatment_pct"] = number_or_null(e.treatment.cv_pct);
    j["ci95_delta_pct"] = interval_or_null(e.ci95_delta_pct);
    j["p_welch"] = number_or_null(e.p_welch);
    j["p_mannwhitney"] = number_or_null(e.mannwhitney.p);
    j["mannwhitney_method"] = std::string(stats::to_string(e.mannwhitney.method));
    j["bimodal_baseline"] = e.bimodal_baseline.bimodal ? nlohmann::json(*e.bimodal_baseline.bimodal) : nullptr;
    j["bimodal_treatment"] = e.bimodal_treatment.bimodal ? nlohmann::json(*e.bimodal_treatment.bimodal) : nullptr;
    if (e.paired)
        j["paired"] = {{"n_pairs", e.paired->n_pairs},
                       {"mean_delta_pct", number_or_null(e.paired->mean_delta_pct)},
                       {"ci95_delta_pct", interval_or_null(e.paired->ci95_delta_pct)}};
    else
        j["paired"] = nullptr;
    j["arms"] = {{"baseline", arm_to_json(e.baseline, e.bimodal_baseline)},
                 {"treatment", arm_to_json(e.treatment, e.bimodal_treatment)}};
    j["profile"] = profile_to_json(p);
    // Extra keys (spec: more keys are welcome).
    j["rule"] = d.rule;
    j["u_mannwhitney"] = number_or_null(e.mannwhitney.u1);
    RunsNeeded more;
    if (e.ci95_delta_pct)
        more = runs_needed_for_ci(e.delta_pct, *e.ci95_delta_pct, std::min(e.baseline.n, e.treatment.n),
                                  delta_thresholds(p));
    j["runs_needed_per_arm"] = more.per_arm ? nlohmann::json(*more.per_arm) : nullptr;
    j["runs_needed_threshold_pct"] = number_or_null(more.threshold_pct);
    return j;
}

SampleVerdict judge_samples(const std::vector<double>& baseline, const std::vector<double>& treatment,
                            const Profile& profile, bool paired)
{
    if (baseline.empty() || treatment.empty())
        throw std::invalid_argument("judge_samples: an arm has no values");
    if (paired && baseline.size() != treatment.size())
        throw std::invalid_argument("judge_samples: paired arms need equal counts");
    const SampleEvidence e = collect_evidence(baseline, treatment, profile.direction, paired);
    SampleDecision d = decide_sample(e, profile);
    SampleVerdict v;
    v.json = sample_verdict_json(e, d, profile);
    v.word = std::move(d.word);
    v.reasons = std::move(d.reasons);
    return v;
}

} // namespace kwb
