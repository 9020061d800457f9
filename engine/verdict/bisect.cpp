// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/bisect.h"

#include "study/arm_roles.h"
#include "study/git_arm.h"
#include "verdict/regression.h"

#include <fmt/format.h>

namespace kwb {

std::string_view to_string(StepOutcome o)
{
    switch (o) {
    case StepOutcome::Bad:
        return "bad";
    case StepOutcome::Good:
        return "good";
    case StepOutcome::Inconclusive:
        break;
    }
    return "inconclusive";
}

StepCall call_bisect_step(const Experiment& e)
{
    StepCall c;
    if (!e.verdict) {
        c.reason = "not judged";
        return c;
    }
    const SampleVerdict& v = *e.verdict;
    const RegressionCall r = call_regression(v, v.profile, 0.0);
    if (r.regressed) {
        c.outcome = StepOutcome::Bad;
        c.reason = fmt::format("regression: delta {:.3g}% beyond the noise band {:.3g}% ({})", r.delta_pct,
            r.noise_band_pct, to_string(v.word));
    } else if (v.word == VerdictWord::Inconclusive) {
        c.reason = fmt::format("INCONCLUSIVE: {}", v.reasons.empty() ? std::string() : v.reasons.front());
    } else {
        c.outcome = StepOutcome::Good;
        c.reason = fmt::format(
            "no regression: delta {:.3g}%, noise band {:.3g}% ({})", r.delta_pct, r.noise_band_pct, to_string(v.word));
    }
    return c;
}

std::vector<BisectPathRow> bisect_path(const Study& study)
{
    std::vector<BisectPathRow> rows;
    for (const auto& e : study.experiments) {
        if (e.id.rfind(kBisectPrefix, 0) != 0 || !is_git_experiment(e))
            continue;
        const AbArms ab = ab_arms(e);
        rows.push_back({e.id, git_arm_of(*ab.baseline)->sha, git_arm_of(*ab.treatment)->sha, call_bisect_step(e)});
    }
    return rows;
}

} // namespace kwb
