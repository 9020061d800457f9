// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The roofline of an A/B: where each arm stands against the device's roofs, from the FLOPs and
// bytes its workload declares per launch. Attainable throughput at arithmetic intensity I
// (FLOP/byte) is min(compute roof, bandwidth roof x I); the ridge point, compute / bandwidth, is
// the intensity where the two meet. An arm left of the ridge is bound by memory bandwidth, right
// of it by compute, and its fraction of the roof is what it achieved over what is attainable at
// its intensity.
//
// The roofs are the speed-of-light guard's (verdict/speed_of_light_roofs.h): bandwidth is the
// larger of the measured read-only and copy ceilings (else the datasheet's HBM peak), compute the
// datasheet's dense peak for the arm's dtype; the measured L2 ceiling is drawn as a second,
// higher bandwidth roof but bounds nothing (declared bytes are DRAM-sized). An arm's point is the
// median of its judged repetitions' intensity (tflops x 1000 / gbs: time cancels) and achieved
// TFLOP/s, with their interquartile ranges as the spread. Where an arm declares no bytes or no
// FLOPs it has no point and one stated reason; nothing is invented. One exception, stated on the
// arm: a run recorded before its workload declared FLOPs, where the workload's parameters fix FLOPs
// per byte (workloads/descriptions/flops_per_byte.h, decode attention's 2 x heads / kv_heads /
// element bytes), gets each repetition's TFLOP/s as its GB/s times that ratio.

#include "verdict/metric_diff.h"
#include "verdict/speed_of_light.h"

#include <optional>
#include <string>
#include <vector>

namespace kwb {

struct Study;
struct Experiment;

enum class RooflineBound { Unknown, Memory, Compute };
const char* roofline_bound_name(RooflineBound b); // "memory", "compute", "unknown"

struct RooflineRange {
    double lo = 0;
    double hi = 0;
};

struct RooflinePoint {
    double intensity = 0; // FLOP/byte, median
    double tflops = 0; // achieved TFLOP/s, median
    RooflineRange intensity_iqr; // 25th-75th percentile over the repetitions
    RooflineRange tflops_iqr;
    std::size_t n = 0; // repetitions with both a byte and a FLOP count
};

struct RooflineArm {
    std::string name; // "baseline", "treatment"
    std::optional<RooflinePoint> point; // null: `reason` says why
    std::string reason; // empty when there is a point
    RooflineBound bound = RooflineBound::Unknown; // which roof is below the point's intensity
    std::optional<double> attainable_tflops; // the roof at the arm's intensity
    std::optional<double> fraction_of_roof; // achieved / attainable (0.82 = 82%)
    // Non-empty when the FLOPs were derived from the parameters rather than measured: how.
    std::string derived;
    // The DRAM traffic the samplers measured during the arm's judged repetitions (the dram_read +
    // dram_write lanes' means, verdict/metric_diff.h), and the arm's TFLOP/s over it: its
    // intensity against DRAM where the declared bytes are not what crossed it (a cache's reuse,
    // bytes the declaration leaves out). Null without those lanes or without a point.
    std::optional<double> measured_dram_gbs;
    std::optional<double> measured_dram_intensity;
};

struct Roofline {
    std::string device;
    std::optional<Roof> bandwidth_gbs; // the DRAM roof, GB/s
    std::optional<Roof> l2_gbs; // drawn, bounds nothing
    std::optional<Roof> compute_tflops;
    std::optional<double> ridge_intensity; // compute / bandwidth, FLOP/byte; null without both
    std::vector<RooflineArm> arms; // baseline first
    // Both arms have a point: the arrow runs from arms[0] to arms[1].
    bool has_arrow() const { return arms.size() == 2 && arms[0].point && arms[1].point; }
    std::vector<std::string> notes; // a missing roof, stated once
};

// From the guard's input (roofs and the arms' repetitions).
Roofline roofline(const SpeedOfLightInput& input);

// The A/B arms of an experiment against the roofs the study records (no machine's own files:
// the window and the reports draw what the study holds). Null when it has no baseline/treatment.
// The measured DRAM intensity comes from the lanes' per-arm means (verdict/metric_diff.h): the
// second form takes the diff its caller has already computed (nullopt: no lanes to use), so the
// Verdict page and the reports do not compute it twice.
std::optional<Roofline> study_roofline(const Study& study, const Experiment& experiment);
std::optional<Roofline> study_roofline(
    const Study& study, const Experiment& experiment, const std::optional<MetricDiff>& lanes);

// "treatment: 4.1 FLOP/B, 17.3 TFLOP/s, 91% of the memory roof" or the arm's reason.
std::string roofline_arm_line(const RooflineArm& arm);
// "4.38 TB/s", "512 GB/s": a bandwidth at three significant digits.
std::string roofline_rate_text(double gbs);
// "NVIDIA H200: bandwidth 4.8 TB/s read-only ceiling, compute 989 TFLOP/s bf16 ..., ridge 206 FLOP/B".
std::string roofline_roofs_line(const Roofline& r);

} // namespace kwb
