// SPDX-License-Identifier: GPL-3.0-or-later
// The three stopping criteria a plan can name (run/stopping.h): count, duration and decision.
#include "run/stopping.h"
#include "stats/descriptive.h"
#include "verdict/runs_needed.h"
#include "verdict/wording.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {

const std::vector<DecisionLook>& StoppingCriterion::looks() const
{
    static const std::vector<DecisionLook> none;
    return none;
}

namespace {

// Exactly runs_per_arm runs per arm.
class CountCriterion final : public StoppingCriterion {
public:
    explicit CountCriterion(int runs_per_arm)
        : runs_(runs_per_arm)
    {
    }
    std::string_view name() const override { return "count"; }
    int cap_per_arm() const override { return runs_; }
    StopDecision at_cap(const BlockState& s) const override
    {
        return {"plan-complete", fmt::format("plan complete: {} runs per arm", s.runs_per_arm)};
    }

private:
    int runs_;
};

// duration_s seconds on the experiment's duration clock with every arm at min_n runs, at most
// max_runs_per_arm per arm: sustained-load behaviour shows in runs of a set duration.
class DurationCriterion final : public StoppingCriterion {
public:
    DurationCriterion(const RunPlan& plan, int min_n)
        : duration_s_(plan.duration_s)
        , max_runs_(plan.max_runs_per_arm)
        , min_n_(min_n)
    {
    }
    std::string_view name() const override { return "duration"; }
    int cap_per_arm() const override { return max_runs_; }
    StopDecision at_cap(const BlockState& s) const override
    {
        return {
            "max-count", fmt::format("max count: {} runs per arm before {} s had passed", s.runs_per_arm, duration_s_)};
    }
    std::optional<StopDecision> reached(const BlockState& s) const override
    {
        if (s.timed_s < duration_s_ || s.runs_per_arm < min_n_)
            return std::nullopt;
        return StopDecision {"duration",
            fmt::format("duration: {:.1f} s passed (duration_s {}) with {} runs per arm", s.timed_s, duration_s_,
                s.runs_per_arm)};
    }

private:
    double duration_s_;
    int max_runs_;
    int min_n_;
};

// A confidence sequence for delta% (run/sequential_ci.h, docs/stopping.md), one look per block from
// max(min_n, 3) runs per arm: stop early only when the interval lies wholly at or beyond the license
// line, wholly below the kill line, or wholly inside the noise band; otherwise run to runs_per_arm.
class DecisionCriterion final : public StoppingCriterion {
public:
    DecisionCriterion(const RunPlan& plan, const Profile& profile)
        : cap_(plan.runs_per_arm)
        , profile_(profile)
        , thresholds_(delta_thresholds(profile))
    {
    }
    std::string_view name() const override { return "decision"; }
    int cap_per_arm() const override { return cap_; }
    const std::vector<DecisionLook>& looks() const override { return looks_; }
    StopDecision at_cap(const BlockState& s) const override
    {
        return {"max-count",
            fmt::format("max count: {} runs per arm; the {}% confidence sequence of delta never left the "
                        "undecided zone",
                s.runs_per_arm, wording::num(100 * (1 - kSequentialAlpha)))};
    }
    std::optional<StopDecision> early(const BlockState& s) override
    {
        const int first_look = std::max(profile_.min_n, 3);
        if (s.runs_per_arm < first_look || s.runs_per_arm >= cap_ || !s.values)
            return std::nullopt;
        const ArmValues v = (*s.values)();
        // The look number follows from n, not from how many checks this session made, so a resumed
        // run continues the same sequence (its alpha_k keep summing to at most alpha).
        const int look = s.runs_per_arm - first_look + 1;
        const auto ci = sequential_interval(v.baseline, v.treatment, v.paired, profile_.direction,
            look_alpha(kSequentialAlpha, look), look_alpha(kSequentialUpperAlpha, look));
        if (!ci)
            return std::nullopt;
        DecisionLook l {look, s.runs_per_arm, *ci, std::nullopt};
        const auto cv_b = stats::summarize(v.baseline).cv_pct;
        const auto cv_t = stats::summarize(v.treatment).cv_pct;
        if (cv_b && cv_t)
            l.sigma_pct = std::max(*cv_b, *cv_t);
        looks_.push_back(l);
        const auto [lo, hi] = ci->interval;
        const double kill = thresholds_.at(0), license = thresholds_.at(1);
        const std::string where = fmt::format("the {}% interval of delta [{}%, {}%] at look {} (n = {} per arm)",
            wording::num(100 * ci->level), wording::num(lo), wording::num(hi), look, s.runs_per_arm);
        if (lo >= license)
            return StopDecision {"beyond-license",
                fmt::format("decision: {} lies wholly at or beyond license {}%", where, wording::num(license))};
        if (hi < kill)
            return StopDecision {
                "below-kill", fmt::format("decision: {} lies wholly below kill {}%", where, wording::num(kill))};
        if (l.sigma_pct) {
            const double band = profile_.noise_k * *l.sigma_pct;
            if (lo >= -band && hi <= band)
                return StopDecision {"inside-noise-band",
                    fmt::format("decision: {} lies wholly inside the noise band +-{}%", where, wording::num(band))};
        }
        return std::nullopt;
    }

private:
    int cap_;
    Profile profile_;
    std::vector<double> thresholds_; // kill, license on the delta% axis
    std::vector<DecisionLook> looks_;
};

} // namespace

std::unique_ptr<StoppingCriterion> make_stopping_criterion(const RunPlan& plan, const Profile& profile)
{
    switch (plan.stop) {
    case StopRule::Duration:
        return std::make_unique<DurationCriterion>(plan, std::max(profile.min_n, 1));
    case StopRule::Decision:
        return std::make_unique<DecisionCriterion>(plan, profile);
    case StopRule::Count:
        break;
    }
    return std::make_unique<CountCriterion>(plan.runs_per_arm);
}

} // namespace kwb
