// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The speed-of-light guard, a study-level rule: an arm whose measured time is shorter than its
// declared bytes and FLOPs allow at the device's roofs (plus a stated margin) cannot have done its
// work, and its A/B gets no LICENSE. Agent-written kernels skip work or reuse results; a rate
// past the hardware is the cheapest sign of it.
//
// Roofs (docs/verdict.md):
// - DRAM: the larger of the measured read-only and copy ceilings (`kwb calibrate`), else the
//   datasheet's HBM peak. Only the bytes that the cache could not have held (what it held before
//   the launch plus what it holds after: twice its size) must cross DRAM.
// - L2: the measured L2-resident read ceiling; every declared byte crosses the L2.
// - Compute: the datasheet's dense peak for the arm's dtype (the measured GEMM ceiling is not a
//   roof: cuBLASLt was seen at 762 TFLOP/s on an H200 whose calibration read 691).
// An arm's figure is the median over its judged repetitions.

#include "verdict/verdict_types.h"

#include <optional>
#include <string>
#include <vector>

namespace kwb {

// Every roof is raised by this much before an arm is called impossible: measured ceilings have
// their own spread, and a kernel may beat the calibration's kernel by a few percent.
inline constexpr double kSpeedOfLightMarginPct = 10;

struct Roof {
    double value = 0; // GB/s for bandwidth, TFLOP/s for compute
    std::string what; // "copy ceiling", "read-only ceiling", "bf16 datasheet peak"...
};

struct SpeedOfLightRoofs {
    std::string device; // "NVIDIA H200", named in the reasons
    std::optional<Roof> dram_gbs;
    std::optional<Roof> l2_gbs;
    std::optional<Roof> compute_tflops;
    double cache_bytes = 0; // the L2 (GPU) or all caches (CPU); 0 when unknown
    std::string cache_name = "L2";
};

// One judged repetition: per-launch time and the rates of the declared bytes and FLOPs.
struct SpeedOfLightRep {
    std::optional<double> time_ms;
    std::optional<double> gbs;
    std::optional<double> tflops;
};

struct SpeedOfLightArm {
    std::string name; // "baseline", "treatment"
    std::vector<SpeedOfLightRep> reps;
};

struct SpeedOfLightInput {
    SpeedOfLightRoofs roofs;
    std::vector<SpeedOfLightArm> arms;
    double margin_pct = kSpeedOfLightMarginPct;
};

struct SpeedOfLightFinding {
    std::vector<std::string> invalid_arms;
    std::vector<std::string> reasons; // one per invalid arm, else one line saying what held or why not checked
};

SpeedOfLightFinding judge_speed_of_light(const SpeedOfLightInput& input);

// An invalid arm makes the final verdict INCONCLUSIVE whatever the samples said (its numbers
// measure nothing), with its reasons first and the flag "speed of light"; otherwise the line is
// added to the reasons.
void apply_speed_of_light(FinalVerdict& final, const SpeedOfLightFinding& finding);

} // namespace kwb
