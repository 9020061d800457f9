// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Clock-aware verdicts: under a power cap the SM clock moves with the load, and a kernel that
// draws more power is throttled more. That is real for the user, so the wall-time verdict stays
// the verdict; beside it the same comparison runs in cycles (each repetition's time x that
// repetition's mean SM clock; for a rate, the rate / the clock), and when the two disagree in sign
// or class the reasons say so ("faster per cycle, throttled more"). docs/verdict.md, "Cycles".
//
// The clock of a repetition: the mean of CUPTI PM sampling's `sm_clock` lane over it where that
// sampling ran (NVML's SM clock reads high under tensor load, notes/cupti-h200.md), else the
// repetition's NVML clock (Sample::clock_mhz) with that caveat stated; none on the CPU backend.

#include "study/study.h"
#include "verdict/verdict_types.h"

#include <optional>
#include <string>
#include <vector>

namespace kwb {

inline constexpr const char* kPmClockLane = "sm_clock";

// The target's judged values of both A/B arms converted to cycles, with where the clock came from.
struct CyclesArms {
    std::string clock_source; // "cupti_sm_clock" or "nvml_sm_clock"
    std::string caveat;
    std::vector<double> baseline;
    std::vector<double> treatment;
    bool paired = false;
    std::optional<double> clock_baseline_mhz, clock_treatment_mhz; // means over the judged repetitions
};

// nullopt on the CPU backend, or when some judged repetition of the target has no clock from
// either source (one source for all, never a mix). `direction` is the target's.
std::optional<CyclesArms> cycles_arms(const Experiment& e, Direction direction);

// The comparison in cycles, judged with the wall-time verdict's profile; adds one reason citing
// it, and one more when it disagrees with the wall-time verdict. Never changes the verdict's word.
CyclesComparison judge_cycles(
    const CyclesArms& arms, const SampleVerdict& wall, const Profile& profile, std::vector<std::string>& reasons);

} // namespace kwb
