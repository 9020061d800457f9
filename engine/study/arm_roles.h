// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <string>

// Which arm of an experiment plays which part. arms[0] is the baseline and arms[1] the treatment
// of the A/B; a third arm with role "aa" is the real A/A: the baseline's configuration run again
// as its own arm, interleaved with the others in the same blocks and run to the same n, so its
// verdict against the baseline is a false-alarm check at the A/B's own sample size (the
// split-half stability check only halves the baseline). Every rule that asks "is this an A/B"
// or "where is the A/A arm" asks here.
namespace kwb {

inline constexpr const char* kAaArmRole = "aa";
inline constexpr const char* kAaArmSuffix = "-aa"; // the A/A arm is named after the baseline: "baseline-aa", "r0c0-aa"

// The A/B's two arms by role: the baseline (the first arm) and the treatment (the first arm after it
// that is not the A/A arm). Either is null when the experiment lacks it. Code that means "the
// baseline" asks here, never arms[0].
template<typename ArmT> struct AbArmsOf {
    ArmT* baseline = nullptr;
    ArmT* treatment = nullptr;
    AbArmsOf() = default;
    AbArmsOf(ArmT* b, ArmT* t)
        : baseline(b)
        , treatment(t)
    {
    }
    // The arms of a mutable experiment read as const ones.
    template<typename Other>
    AbArmsOf(const AbArmsOf<Other>& other) // NOLINT(google-explicit-constructor): a widening, as for pointers
        : baseline(other.baseline)
        , treatment(other.treatment)
    {
    }
    explicit operator bool() const { return baseline && treatment; }
};
using AbArms = AbArmsOf<const Arm>;
AbArms ab_arms(const Experiment& e);
AbArmsOf<Arm> ab_arms(Experiment& e);

// The A/A arm, or null.
const Arm* aa_arm(const Experiment& e);

// The arms of the A/B itself: all arms but the A/A arm (2 for a runnable A/B).
int ab_arm_count(const Experiment& e);

// Appends the A/A arm: the baseline's parameters (and command) under the baseline's name plus
// "-aa" ("baseline-aa"; a grid cell's "r0c0-aa") and the role "aa". Throws std::invalid_argument when the experiment
// has no baseline or already has one.
void add_aa_arm(Experiment& e);

// Removes the A/A arm (and its samples' verdict), if any.
void remove_aa_arm(Experiment& e);

// After an edit of the baseline: the A/A arm takes the baseline's parameters and command again.
void sync_aa_arm(Experiment& e);

} // namespace kwb
