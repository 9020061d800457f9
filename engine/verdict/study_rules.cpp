// SPDX-License-Identifier: GPL-3.0-or-later
// The study-level rules of spec/verdict.md, applied after the sample verdict: guards, the
// tradeoff gate, the prediction check.
//
// Why they exist: a faster TTFT bought with a slower ITL is not a win (guards); a license that
// names no sacrifice has not looked at what it costs (tradeoffs); a measurement far from what the
// model predicted means the model of the kernel is wrong even when the verdict is right
// (prediction check: a flag to investigate, never a verdict change).
#include "study/gates.h"
#include "verdict/evidence.h"
#include "verdict/profile.h"
#include "verdict/verdict.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace kwb {
namespace {

using wording::num;

struct GuardOutcome {
    nlohmann::json json;
    bool regressed = false;
    std::string reason;   // empty when there is nothing to say
};

GuardOutcome judge_guard(const GuardArms& g, const Profile& target_profile)
{
    GuardOutcome out;
    Profile p = target_profile;
    p.direction = g.direction;
    out.json = {{"metric", g.metric}, {"direction", std::string(to_string(g.direction))},
                {"tolerance_pct", g.tolerance_pct}, {"n_baseline", g.baseline.size()},
                {"n_treatment", g.treatment.size()}};
    if (g.baseline.empty() || g.treatment.empty()) {
        out.json.update({{"assessed", false}, {"regressed", false}, {"verdict", nullptr}, {"delta_pct", nullptr},
                         {"sigma_pct", nullptr}});
        out.reason = fmt::format("guard {} not assessed: no samples", g.metric);
        return out;
    }
    const SampleVerdict v = judge_samples(g.baseline, g.treatment, p, false);
    const int rule = v.json.value("rule", 0);
    const bool assessed = rule != 1 && rule != 2;   // enough runs and stable
    const double delta = v.json.at("delta_pct").is_number() ? v.json.at("delta_pct").get<double>() : 0.0;
    const double sigma = v.json.at("sigma_pct").is_number() ? v.json.at("sigma_pct").get<double>() : 0.0;
    out.regressed = assessed && delta < 0 && std::fabs(delta) > p.noise_k * sigma && -delta > g.tolerance_pct;
    out.json.update({{"assessed", assessed},
                     {"regressed", out.regressed},
                     {"verdict", v.word},
                     {"delta_pct", v.json.at("delta_pct")},
                     {"sigma_pct", v.json.at("sigma_pct")},
                     {"ci95_delta_pct", v.json.at("ci95_delta_pct")},
                     {"reasons", v.reasons}});
    if (!assessed)
        out.reason = fmt::format("guard {} not assessed: {}", g.metric, v.reasons.empty() ? "" : v.reasons.front());
    else if (out.regressed)
        out.reason = fmt::format("guard {} regressed: delta {}% is beyond its noise band ({} x sigma {}% = {}%) and "
                                 "its tolerance of {}%",
                                 g.metric, num(delta), num(p.noise_k), num(sigma), num(p.noise_k * sigma),
                                 num(g.tolerance_pct));
    else
        out.reason = fmt::format("guard {} holds: delta {}% (sigma {}%, tolerance {}%)", g.metric, num(delta),
                                 num(sigma), num(g.tolerance_pct));
    return out;
}

} // namespace

FinalVerdict apply_study_rules(const SampleVerdict& sample, const StudyRulesInput& input, const Profile& profile)
{
    FinalVerdict f;
    f.word = sample.word;
    f.reasons = sample.reasons;
    nlohmann::json j;

    // Guards: any regressed guard kills, whatever the target did.
    nlohmann::json guards = nlohmann::json::array();
    std::vector<std::string> regressed;
    for (const auto& g : input.guards) {
        GuardOutcome o = judge_guard(g, profile);
        guards.push_back(o.json);
        if (o.regressed)
            regressed.push_back(g.metric);
        f.reasons.push_back(o.reason);
    }
    if (!regressed.empty()) {
        std::string names;
        for (const auto& m : regressed)
            names += (names.empty() ? "" : ", ") + m;
        f.word = "KILL";
        f.reasons.push_back(fmt::format("KILL: guard regressed ({}), whatever the target did", names));
    }

    // Tradeoff gate: a license must name what it gave up.
    const bool any_sacrifice = tradeoff_named(input.tradeoffs);
    if (f.word == "LICENSE" && !any_sacrifice) {
        f.word = "INCONCLUSIVE";
        f.reasons.push_back(tradeoff_gate_reason());
    }

    // Prediction check: flags only.
    const nlohmann::json& measured_j = sample.json.contains("delta_pct") ? sample.json.at("delta_pct") : nlohmann::json();
    j["predicted_delta_pct"] = number_or_null(input.predicted_delta_pct);
    j["measured_delta_pct"] = measured_j.is_number() ? measured_j : nlohmann::json(nullptr);
    if (input.predicted_delta_pct && sample.word != "NOISE" && measured_j.is_number()) {
        const double m = measured_j.get<double>();
        const double pr = *input.predicted_delta_pct;
        if ((m > 0 && pr < 0) || (m < 0 && pr > 0)) {
            f.flags.push_back("sign mismatch");
            f.reasons.push_back(fmt::format("prediction check: measured delta {}% and predicted {}% have opposite signs",
                                            num(m), num(pr)));
        }
        if (std::fabs(m) < std::fabs(pr) / 2 || std::fabs(m) > 2 * std::fabs(pr)) {
            f.flags.push_back("magnitude off");
            f.reasons.push_back(fmt::format("prediction check: measured |delta| {}% is {} the predicted {}%",
                                            num(std::fabs(m)),
                                            std::fabs(m) < std::fabs(pr) / 2 ? "less than half of" : "more than twice",
                                            num(std::fabs(pr))));
        }
    }

    // A/A calibration: how often this setup cries wolf.
    if (input.aa && input.aa->splits > 0) {
        const auto& aa = *input.aa;
        const double rate = static_cast<double>(aa.false_alarms) / aa.splits;
        f.reasons.push_back(fmt::format("A/A calibration: {} of {} splits gave a false alarm ({}%)", aa.false_alarms,
                                        aa.splits, num(100 * rate)));
        j["aa"] = {{"splits", aa.splits}, {"false_alarms", aa.false_alarms}, {"false_alarm_rate", rate}};
    } else {
        j["aa"] = nullptr;
    }

    j["verdict"] = f.word;
    j["reasons"] = f.reasons;
    j["flags"] = f.flags;
    j["sample_verdict"] = sample.word;
    j["sample_reasons"] = sample.reasons;
    j["profile"] = profile_to_json(profile);
    j["guards"] = guards;
    j["tradeoff_named"] = any_sacrifice;
    f.json = std::move(j);
    return f;
}

} // namespace kwb
