// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/delta_lines.h"

#include "verdict/profile.h"
#include "verdict/runs_needed.h"
#include "verdict/wording.h"

namespace kwb {

std::vector<DeltaLine> delta_lines(const Profile& profile)
{
    // delta_thresholds() is the rule the verdict and the stopping rule use: kill, then license.
    const std::vector<double> at = delta_thresholds(profile);
    if (rule_family(profile) == "speedup")
        return {{at[0], VerdictWord::Kill, fmt::format("kill < {}× speedup", wording::num(profile.kill_speedup))},
            {at[1], VerdictWord::License, fmt::format("license ≥ {}× speedup", wording::num(profile.license_speedup))}};
    return {{at[0], VerdictWord::Kill, fmt::format("kill < {} %", wording::num(profile.kill_pct))},
        {at[1], VerdictWord::License, fmt::format("license ≥ {} %", wording::num(profile.license_pct))}};
}

} // namespace kwb
