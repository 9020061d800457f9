// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The verdict as data: what the engine decided and every number it decided on. Plain structs
// with no rule in them, so the study (engine/study/study.h) can hold them without depending on
// the rules. Every number that can be undefined is a std::optional (JSON null); the JSON form of
// spec/verdict.md is written and read in one place, verdict/verdict_json.*.
//
// Reading guide for consumers (kwb, pages, reports): a SampleVerdict is `kwb verdict --json` as a
// struct (rules 1-7 on the target metric); a FinalVerdict is what the study-level rules (guards,
// tradeoff gate, prediction check) made of it. Show the final word as the study's answer and the
// sample verdict's numbers as its evidence.

#include "util/direction.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kwb {

// A threshold profile. `name` is "generic", "strict", "speedup", or "custom" once any number was
// overridden, in which case `base` names the profile it started from.
struct Profile {
    std::string name = "generic";
    std::string base;
    Direction direction = Direction::Lower;
    int min_n = 3;
    double license_pct = 10;
    double kill_pct = 5;
    double max_sigma_pct = 5;
    double unstable_sigma_pct = 10;
    double noise_k = 2;
    double license_speedup = 5.0; // speedup profile only
    double kill_speedup = 2.0; // speedup profile only
};

enum class VerdictWord { License, Kill, Noise, Inconclusive };

// "LICENSE", "KILL", "NOISE", "INCONCLUSIVE".
std::string_view to_string(VerdictWord word);
std::optional<VerdictWord> parse_verdict_word(std::string_view text);

using DeltaInterval = std::array<double, 2>; // [lo, hi] in delta%

// One mode of a bimodal arm.
struct VerdictMode {
    double share = 0; // of the arm's runs, 0-1
    std::optional<double> mean;
};

// The "arms" entry of one arm (spec/verdict.md, "Definitions").
struct ArmStats {
    std::size_t n = 0;
    std::optional<double> mean, median, stddev, cv_pct, min, max, p50, p90, p99;
    int outliers_mild = 0;
    int outliers_extreme = 0;
    std::optional<std::vector<VerdictMode>> modes; // only for a bimodal arm
};

// Paired evidence of interleaved runs: per-pair delta%, its mean and bootstrap CI.
struct PairedStats {
    std::size_t n_pairs = 0;
    std::optional<double> mean_delta_pct;
    std::optional<DeltaInterval> ci95_delta_pct; // null with one pair
};

// The sample verdict of spec/verdict.md (`kwb verdict --json` as a struct).
struct SampleVerdict {
    VerdictWord word = VerdictWord::Inconclusive;
    std::vector<std::string> reasons;
    int rule = 0; // the sample rule that matched, 1-7
    std::optional<double> delta_pct; // of the means, positive = better
    std::optional<double> sigma_pct; // max(cv%_B, cv%_T); null when an arm has n = 1
    std::optional<double> speedup;
    std::optional<DeltaInterval> ci95_delta_pct; // percentile bootstrap, 10,000 resamples
    std::optional<double> p_welch;
    std::optional<double> p_mannwhitney;
    std::optional<double> u_mannwhitney;
    std::string mannwhitney_method; // "exact" or "asymptotic"
    std::optional<bool> bimodal_baseline; // null: not assessed (n < 6)
    std::optional<bool> bimodal_treatment;
    std::optional<PairedStats> paired;
    ArmStats baseline;
    ArmStats treatment;
    Profile profile;
    std::optional<int> runs_needed_per_arm; // for the CI to clear the nearest threshold
    std::optional<double> runs_needed_threshold_pct;

    std::size_t n_baseline() const { return baseline.n; }
    std::size_t n_treatment() const { return treatment.n; }
};

// One guard metric's outcome under the study-level rules.
struct GuardVerdict {
    std::string metric;
    Direction direction = Direction::Lower;
    double tolerance_pct = 0;
    std::size_t n_baseline = 0;
    std::size_t n_treatment = 0;
    bool assessed = false; // enough runs and stable (rules 1-2 passed)
    bool regressed = false;
    std::optional<VerdictWord> word; // null when it had no samples
    std::optional<double> delta_pct;
    std::optional<double> sigma_pct;
    bool judged = false; // samples existed: ci and reasons below are meaningful
    std::optional<DeltaInterval> ci95_delta_pct;
    std::vector<std::string> reasons;
};

// The split-half stability check cited in the final verdict: the baseline's own runs split in
// halves and judged against each other.
struct SplitHalfSummary {
    int splits = 0;
    int false_alarms = 0;
    double false_alarm_rate = 0;
};

// Repetitions during which another process used the study's GPU (verdict/gpu_sharing.h): the
// evidence behind the "GPU to ourselves" rule. JSON key "gpu_sharing" of the final verdict.
struct GpuSharingSummary {
    std::string source; // what was read, in words ("NVML's compute-process list")
    int repetitions = 0; // judged repetitions looked at
    int shared = 0; // of them, those another process used the GPU during
    std::vector<int> positions; // the shared repetitions' positions in the run order
};

// The target's comparison in cycles (verdict/cycles.h): each repetition's value times (a time) or
// divided by (a rate) that repetition's mean SM clock, judged as the wall-time samples are.
// Reported beside the wall-time verdict, never replacing it. JSON key "cycles" of the final verdict.
struct CyclesComparison {
    std::string clock_source; // "cupti_sm_clock" or "nvml_sm_clock"
    std::string caveat; // non-empty for NVML's clock
    VerdictWord word = VerdictWord::Inconclusive;
    std::optional<double> delta_pct;
    std::optional<double> sigma_pct;
    std::optional<DeltaInterval> ci95_delta_pct;
    std::optional<double> clock_baseline_mhz; // mean of the judged repetitions' clocks
    std::optional<double> clock_treatment_mhz;
    std::size_t n_baseline = 0;
    std::size_t n_treatment = 0;
    bool disagrees = false; // with the wall-time verdict, in sign or class
};

// The study's answer: the sample verdict after guards, the tradeoff gate and the prediction check.
struct FinalVerdict {
    VerdictWord word = VerdictWord::Inconclusive;
    std::vector<std::string> reasons;
    std::vector<std::string> flags; // "sign mismatch", "magnitude off"
    VerdictWord sample_word = VerdictWord::Inconclusive;
    std::vector<std::string> sample_reasons;
    Profile profile;
    std::vector<GuardVerdict> guards;
    bool tradeoff_named = false;
    std::optional<double> predicted_delta_pct;
    std::optional<double> measured_delta_pct;
    std::optional<SplitHalfSummary> split_half; // JSON key "split_half" (read from "aa" in older files)
    std::optional<GpuSharingSummary> gpu_sharing; // null: no process list was recorded (CPU, no NVML)
    std::optional<CyclesComparison> cycles; // null: no clock (CPU backend, no sampler)
};

} // namespace kwb
