// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/schedule.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

namespace kwb {
namespace {

// The arm permutations of the randomised order, drawn in sequence from one generator.
// std::mt19937_64's output is fixed by the standard, and the Fisher-Yates draw below uses no
// implementation-defined distribution, so a seed gives the same order everywhere.
//
// The runner asks for one block at a time, in order: the stream keeps its generator between
// calls, so a run of n blocks costs O(n) draws instead of rebuilding every earlier block at every
// repetition (O(n^2): minutes at a million runs). Asking for an earlier block restarts it.
struct RandomBlockStream {
    int arm_count = -1;
    std::uint64_t seed = 0;
    std::mt19937_64 rng;
    int next = 0; // the block the next draw gives

    std::vector<int> draw()
    {
        std::vector<int> perm(static_cast<size_t>(arm_count));
        std::iota(perm.begin(), perm.end(), 0);
        for (int i = arm_count - 1; i > 0; --i) {
            // A 64-bit draw modulo a handful of arms: the bias is below 2^-58, and unlike
            // std::uniform_int_distribution the result is the same with every standard library.
            const auto j = static_cast<int>(rng() % static_cast<std::uint64_t>(i + 1));
            std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
        }
        ++next;
        return perm;
    }

    // Positions the stream at `block` (same arms and seed: forward from where it is).
    void seek(int arms, std::uint64_t s, int block)
    {
        if (arms != arm_count || s != seed || block < next) {
            arm_count = arms;
            seed = s;
            rng.seed(s);
            next = 0;
        }
        while (next < block)
            draw();
    }
};

} // namespace

std::vector<ScheduledRun> schedule_warmups(int arm_count, int warmup_rounds)
{
    std::vector<ScheduledRun> runs;
    const int total = arm_count * warmup_rounds;
    for (int round = 0; round < warmup_rounds; ++round)
        for (int a = 0; a < arm_count; ++a)
            runs.push_back({a, round, static_cast<int>(runs.size()) - total, true});
    return runs;
}

std::vector<ScheduledRun> schedule_blocks(int arm_count, const RunPlan& plan, int first_block, int count)
{
    std::vector<ScheduledRun> runs;
    if (arm_count <= 0 || count <= 0)
        return runs;
    thread_local RandomBlockStream random; // per thread: two runners never share a generator
    if (plan.order == RunOrder::RandomisedBlocks)
        random.seek(arm_count, plan.seed, first_block);
    for (int b = first_block; b < first_block + count; ++b) {
        std::vector<int> arms(static_cast<size_t>(arm_count));
        if (plan.order == RunOrder::RandomisedBlocks) {
            arms = random.draw();
        } else {
            // ABBA: forward in even blocks, reversed in odd ones (A B | B A | A B | B A ...).
            std::iota(arms.begin(), arms.end(), 0);
            if (b % 2 == 1)
                std::reverse(arms.begin(), arms.end());
        }
        for (int i = 0; i < arm_count; ++i)
            runs.push_back({arms[static_cast<size_t>(i)], b, b * arm_count + i, false});
    }
    return runs;
}

std::vector<std::string> order_names(const std::vector<Arm>& arms, const RunPlan& plan, int blocks)
{
    std::vector<std::string> names;
    for (const auto& r : schedule_blocks(static_cast<int>(arms.size()), plan, 0, blocks))
        names.push_back(arms[static_cast<size_t>(r.arm)].name);
    return names;
}

} // namespace kwb
