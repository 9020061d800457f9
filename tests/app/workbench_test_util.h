// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the app-level GUI tests share: the engine's sample verdict for an experiment, computed
// the way `kwb verdict` computes it (judge_samples on the judged values, same profile), so the
// verdict the window shows can be checked against it.

#include "study/study.h"
#include "verdict/verdict.h"

namespace kwb::test {

inline SampleVerdict engineSampleVerdict(const Study& study, const Experiment& e, bool paired)
{
    const Direction direction = e.metric == study.target.metric ? study.target.direction : Direction::Lower;
    const Profile profile = apply_overrides(make_profile(e.profile, direction), e.profile_overrides);
    return judge_samples(
        judged_values(e, e.arms.at(0).name, e.metric), judged_values(e, e.arms.at(1).name, e.metric), profile, paired);
}

} // namespace kwb::test
