// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <string>
#include <vector>

// The run order of an experiment, built without running anything.
//
// Why interleave: a machine drifts during a study (clocks settle, caches and page tables warm,
// a neighbour starts a job). Running all of A and then all of B turns that drift into a fake
// delta. Interleaving puts both arms under the same drift: ABBA blocks cancel a linear drift
// exactly within every pair of blocks; seeded randomised blocks (each block one run per arm in a
// random permutation) also break periodic patterns, and the seed makes the order reproducible.
//
// Positions: judged runs are numbered 0, 1, 2... in the order (`position`), so position / arms
// is the block. A block holds one run of each arm, and the runs of one block form a pair for the
// paired evidence. Warm-ups come before the order, one round per warm-up with each arm once,
// flagged and never judged; they carry negative positions (-W..-1 for W warm-up repetitions) so
// that judged positions index the order directly.
namespace kwb {

struct ScheduledRun {
    int arm = 0; // index into the arms
    int rep = 0; // index within its arm (judged runs: the block)
    int position = 0; // see above; negative for warm-ups
    bool warmup = false;
};

// Warm-up rounds: for each round every arm once, in arm order.
std::vector<ScheduledRun> schedule_warmups(int arm_count, int warmup_rounds);

// Blocks [first_block, first_block + count) of the judged order. The order is prefix-stable: the
// runs of block b do not depend on how many blocks are asked for, so a stopped experiment resumes
// exactly where it stopped.
std::vector<ScheduledRun> schedule_blocks(int arm_count, const RunPlan& plan, int first_block, int count);

// The arm names of the judged order's first `blocks` blocks (the progress stream's plan.order).
std::vector<std::string> order_names(const std::vector<Arm>& arms, const RunPlan& plan, int blocks);

} // namespace kwb
