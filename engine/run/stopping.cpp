// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/stopping.h"

#include "stats/descriptive.h"
#include "verdict/profile.h"
#include "verdict/runs_needed.h"
#include "verdict/wording.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {

Judgement judgement_of(const SampleVerdict& verdict)
{
    return Judgement {std::string(to_string(verdict.word)), verdict.ci95_delta_pct};
}

StoppingRule::StoppingRule(const RunPlan& plan, const Profile& profile)
    : plan_(plan)
    , profile_(profile)
    , thresholds_(delta_thresholds(profile))
{
}

int StoppingRule::cap_per_arm() const
{
    return plan_.stop == StopRule::Duration ? plan_.max_runs_per_arm : plan_.runs_per_arm;
}

int StoppingRule::first_look_per_arm() const
{
    return std::max(profile_.min_n, 3);
}

std::optional<std::string> StoppingRule::check(int runs_per_arm, double elapsed_s,
    const std::function<ArmValues()>& values, std::optional<double> duration_clock_s)
{
    const double timed_s = duration_clock_s.value_or(elapsed_s);
    code_.clear();
    const int min_n = std::max(profile_.min_n, 1);
    if (plan_.stop == StopRule::Decision && runs_per_arm >= first_look_per_arm() && runs_per_arm < cap_per_arm())
        if (auto reason = decide(runs_per_arm, values))
            return reason;
    if (runs_per_arm >= cap_per_arm()) {
        switch (plan_.stop) {
        case StopRule::Count:
            code_ = "plan-complete";
            return fmt::format("plan complete: {} runs per arm", runs_per_arm);
        case StopRule::Duration:
            code_ = "max-count";
            return fmt::format("max count: {} runs per arm before {} s had passed", runs_per_arm, plan_.duration_s);
        case StopRule::Decision:
            code_ = "max-count";
            return fmt::format("max count: {} runs per arm; the {}% confidence sequence of delta never left the "
                               "undecided zone",
                runs_per_arm, wording::num(100 * (1 - kSequentialAlpha)));
        }
    }
    if (elapsed_s >= plan_.max_seconds) {
        code_ = "max-time";
        return fmt::format("max time: {:.1f} s reached (max_seconds {}) with {} runs per arm", elapsed_s,
            plan_.max_seconds, runs_per_arm);
    }
    if (plan_.stop == StopRule::Duration && timed_s >= plan_.duration_s && runs_per_arm >= min_n) {
        code_ = "duration";
        return fmt::format(
            "duration: {:.1f} s passed (duration_s {}) with {} runs per arm", timed_s, plan_.duration_s, runs_per_arm);
    }
    return std::nullopt;
}

std::optional<std::string> StoppingRule::decide(int runs_per_arm, const std::function<ArmValues()>& values)
{
    const ArmValues v = values();
    // The look number follows from n, not from how many checks this session made, so a resumed
    // run continues the same sequence (its alpha_k keep summing to at most alpha).
    const int look = runs_per_arm - first_look_per_arm() + 1;
    const auto ci = sequential_interval(v.baseline, v.treatment, v.paired, profile_.direction,
        look_alpha(kSequentialAlpha, look), look_alpha(kSequentialUpperAlpha, look));
    if (!ci)
        return std::nullopt;
    DecisionLook l {look, runs_per_arm, *ci, std::nullopt};
    const auto cv_b = stats::summarize(v.baseline).cv_pct;
    const auto cv_t = stats::summarize(v.treatment).cv_pct;
    if (cv_b && cv_t)
        l.sigma_pct = std::max(*cv_b, *cv_t);
    looks_.push_back(l);
    const auto [lo, hi] = ci->interval;
    const double kill = thresholds_.at(0), license = thresholds_.at(1);
    const std::string where = fmt::format("the {}% interval of delta [{}%, {}%] at look {} (n = {} per arm)",
        wording::num(100 * ci->level), wording::num(lo), wording::num(hi), look, runs_per_arm);
    if (lo >= license) {
        code_ = "beyond-license";
        return fmt::format("decision: {} lies wholly at or beyond license {}%", where, wording::num(license));
    }
    if (hi < kill) {
        code_ = "below-kill";
        return fmt::format("decision: {} lies wholly below kill {}%", where, wording::num(kill));
    }
    if (l.sigma_pct) {
        const double band = profile_.noise_k * *l.sigma_pct;
        if (lo >= -band && hi <= band) {
            code_ = "inside-noise-band";
            return fmt::format("decision: {} lies wholly inside the noise band +-{}%", where, wording::num(band));
        }
    }
    return std::nullopt;
}

StopRecord stop_record(const StoppingRule& rule, const RunPlan& plan, int runs_per_arm, const std::string& code)
{
    StopRecord r;
    r.rule = std::string(to_string(plan.stop));
    r.code = code;
    r.runs_per_arm = runs_per_arm;
    if (plan.stop == StopRule::Decision) {
        r.alpha = kSequentialAlpha;
        if (!rule.looks().empty()) {
            const auto& l = rule.looks().back();
            r.looks = l.look;
            r.interval = l.interval.interval;
            r.interval_level = l.interval.level;
        }
    }
    return r;
}

} // namespace kwb
