// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/binding_classifier.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Per-kernel evidence from a profiling pass: CUPTI Activity records (which kernel ran when) and
// CUPTI PM samples (what the counters read over each 1 ms window), both in the cuptiGetTimestamp
// clock. Why PM samples and not the range profiler: on the H200 their means over a kernel agree
// with ncu within 1 point (shared/notes/cupti-h200.md section 5), they run beside Activity, and
// the range profiler replays every launch 8 times (120-190 ms each) and cannot collect while PM
// sampling is configured. Pure (kwb_analysis): the profiling pass measures, this attributes.
namespace kwb {

struct KernelRecord {
    std::string name;
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
};

struct PmWindow {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::map<std::string, double> values; // lane name (engine/sampling/cupti_metrics.h) -> value
};

struct AttributionRules {
    // A sample counts for kernel K when K ran during at least this share of the sample's window...
    double min_sample_coverage = 0.5;
    // ...and K was at least this share of the kernel time inside the window (no other kernel mixed in).
    double min_kernel_purity = 0.9;
};

struct KernelEvidence {
    std::string name;
    int launches = 0;
    double total_ms = 0;
    double mean_ms = 0;
    double median_ms = 0;
    double share_pct = 0; // of all kernel time in the pass
    int samples = 0; // PM samples attributed to it
    double coverage_pct = 0; // mean share of those samples' windows the kernel ran
    std::map<std::string, double> means; // lane -> mean over its samples (empty: no sample)
};

struct ProfileEvidence {
    std::vector<KernelEvidence> kernels; // by total time, largest first
    double wall_ms = 0; // the profiled span (host view: first call to last synchronise)
    double kernel_busy_ms = 0; // the union of all kernel intervals
    int launches = 0; // kernel records
    std::optional<double> launches_per_s;
    std::optional<double> kernel_share_pct; // kernel_busy_ms / wall_ms
    int samples_total = 0;
    int samples_attributed = 0;
};

// Attributes PM windows to kernels by the rules and sums the Activity records per kernel name.
// `wall_ms` <= 0: launches/s and the kernel share are left unmeasured.
ProfileEvidence attribute_kernels(const std::vector<KernelRecord>& kernels, const std::vector<PmWindow>& samples,
    double wall_ms, const AttributionRules& rules = {});

// The classifier's input from the dominant kernel (the most kernel time) and the whole pass
// (launches/s, kernel share). `workload_launches` > 0 gives profiled_ms_per_launch = the time any
// kernel ran (overlapping kernels once) / workload launches, comparable with `timed_ms_per_launch`
// (CUDA events without the profiler).
BindingEvidenceInput binding_input(const ProfileEvidence& evidence, int workload_launches,
    std::optional<double> timed_ms_per_launch, std::optional<int> blocks_per_sm = std::nullopt,
    std::optional<double> smem_per_block_kib = std::nullopt);

// The study's binding.kernels array: one object per kernel (name, launches, times, share, samples,
// coverage_pct, metrics).
nlohmann::json kernels_json(const ProfileEvidence& evidence);

} // namespace kwb
