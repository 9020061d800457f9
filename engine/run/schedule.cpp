// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/schedule.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

namespace kwb {
namespace {

// The arm permutation of every block up to `last` (inclusive), drawn in sequence from one
// generator. std::mt19937_64's output is fixed by the standard, and the Fisher-Yates draw below
// uses no implementation-defined distribution, so a seed gives the same order everywhere.
std::vector<std::vector<int>> random_blocks(int arm_count, std::uint64_t seed, int last)
{
    std::mt19937_64 rng(seed);
    std::vector<std::vector<int>> blocks;
    for (int b = 0; b <= last; ++b) {
        std::vector<int> perm(static_cast<size_t>(arm_count));
        std::iota(perm.begin(), perm.end(), 0);
        for (int i = arm_count - 1; i > 0; --i) {
            // A 64-bit draw modulo a handful of arms: the bias is below 2^-58, and unlike
            // std::uniform_int_distribution the result is the same with every standard library.
            const auto j = static_cast<int>(rng() % static_cast<std::uint64_t>(i + 1));
            std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
        }
        blocks.push_back(std::move(perm));
    }
    return blocks;
}

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
    std::vector<std::vector<int>> random;
    if (plan.order == RunOrder::RandomisedBlocks)
        random = random_blocks(arm_count, plan.seed, first_block + count - 1);
    for (int b = first_block; b < first_block + count; ++b) {
        std::vector<int> arms(static_cast<size_t>(arm_count));
        if (plan.order == RunOrder::RandomisedBlocks) {
            arms = random[static_cast<size_t>(b)];
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
