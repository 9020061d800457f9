// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/arm_roles.h"

#include <algorithm>
#include <stdexcept>

namespace kwb {

namespace {

template<typename ArmT, typename E> AbArmsOf<ArmT> arms_of(E& e)
{
    AbArmsOf<ArmT> out;
    if (e.arms.empty())
        return out;
    out.baseline = &e.arms.front();
    for (auto it = e.arms.begin() + 1; it != e.arms.end(); ++it)
        if (it->role != kAaArmRole) {
            out.treatment = &*it;
            break;
        }
    return out;
}

} // namespace

AbArms ab_arms(const Experiment& e)
{
    return arms_of<const Arm>(e);
}

AbArmsOf<Arm> ab_arms(Experiment& e)
{
    return arms_of<Arm>(e);
}

const Arm* aa_arm(const Experiment& e)
{
    const auto it = std::find_if(e.arms.begin(), e.arms.end(), [](const Arm& a) { return a.role == kAaArmRole; });
    return it == e.arms.end() ? nullptr : &*it;
}

int ab_arm_count(const Experiment& e)
{
    return static_cast<int>(
        std::count_if(e.arms.begin(), e.arms.end(), [](const Arm& a) { return a.role != kAaArmRole; }));
}

void add_aa_arm(Experiment& e)
{
    if (e.arms.size() < 2)
        throw std::invalid_argument("an A/A arm needs the A/B's baseline and treatment first");
    if (aa_arm(e))
        throw std::invalid_argument("the experiment already has an A/A arm");
    Arm aa = e.arms.front();
    aa.name = e.arms.front().name + kAaArmSuffix;
    aa.role = kAaArmRole;
    aa.check.reset();
    e.arms.push_back(std::move(aa));
}

void remove_aa_arm(Experiment& e)
{
    e.arms.erase(
        std::remove_if(e.arms.begin(), e.arms.end(), [](const Arm& a) { return a.role == kAaArmRole; }), e.arms.end());
    e.aa_verdict.reset();
}

void sync_aa_arm(Experiment& e)
{
    if (e.arms.empty())
        return;
    for (auto& a : e.arms)
        if (a.role == kAaArmRole) {
            a.params = e.arms.front().params;
            a.command = e.arms.front().command;
            a.git = e.arms.front().git; // schema 8: the baseline's commit, as its command's environment was
        }
}

} // namespace kwb
