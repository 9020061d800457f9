// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "verdict/verdict_types.h"

#include <optional>
#include <string>

// The real A/A (study/arm_roles.h): the "aa" arm, the baseline's configuration run again in the
// same blocks, judged against the baseline with the A/B's own profile and rules. Both ran the
// same code, so any word but NOISE is a false alarm at the A/B's n; kwb run, the study's
// reasons, the per-device history (run/aa_history.h) and the verdict page all ask here.
namespace kwb {

// The A/A arm's sample verdict against the baseline; nullopt without an A/A arm or while either
// has no usable judged run. Paired when the two arms' runs match block by block.
std::optional<SampleVerdict> judge_aa_arm(const Experiment& e, const Profile& profile);

// A false alarm: the A/A called a difference (any word but NOISE).
bool aa_false_alarm(const SampleVerdict& aa);

// "A/A at n = 10: NOISE, delta 0.3% [-0.4, 1]" (the interval is the verdict's 95% CI of delta%).
std::string aa_summary(const SampleVerdict& aa);

// A grid's A/A, reported beside the grid (study/grid.h grid_aa_cell): "A/A at n = 6: NOISE, delta
// 0.3% [-0.4, 1] (the baseline cell r0c0 again, beside cell r0c1)", "A/A arm beside cell r0c1: no
// verdict yet", or empty when the grid has no A/A arm. kwb run and the grid page show this line.
std::string grid_aa_line(const Study& study, const GridGroup& grid);

} // namespace kwb
