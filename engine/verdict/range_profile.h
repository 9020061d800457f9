// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/metric_diff.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// `kwb profile --arms all` (issue 30): what the CUPTI range profiler measured of one arm. The
// plugin runs a few launches of the arm's workload under the range profiler (one range per kernel,
// each kernel replayed once per pass, never while PM sampling runs: the two cannot collect at once,
// shared/notes/cupti-h200.md section 8) and one launch under CUPTI Activity for each kernel's
// registers and shared memory (the range profiler has no launch__ metrics on sm_90). Here the
// plugin's reply becomes per-launch values: a launch of the workload is the repetition of this
// diff, as a timed repetition is of the lanes' (verdict/metric_diff.h).
namespace kwb {

// How a metric of the kernels of one launch adds up to that launch's value.
enum class RangeAggregate {
    Sum, // bytes, sectors, time: the launch's total
    SectorWeighted, // hit rate: weighted by each kernel's L2 sectors (the launch's hits / its sectors)
    TimeWeighted, // occupancy: weighted by each kernel's duration (what the SMs saw over the launch)
    LongestKernel, // registers, shared memory: those of the kernel that ran longest in the launch
};

struct RangeMetricSpec {
    std::string key; // "dram_read_bytes": the name in the table and the JSON
    std::string cupti; // "dram__bytes_read.sum"; empty for a figure of the kernel's launch record
    std::string unit;
    RangeAggregate aggregate;
    double scale; // CUPTI value x scale = the value in `unit` (gpu__time_duration is in ns)
    std::string what;
};

// The metrics of the table, in its order (names checked against the sm_90 range-profiler list,
// shared/notes/range-profiler-metrics-sm90.txt).
const std::vector<RangeMetricSpec>& range_metrics();
// The CUPTI metric names the plugin is asked to collect, in range_metrics() order.
std::vector<std::string> range_profiler_cupti_names();

// One kernel of one workload launch: one range of the profiler.
struct KernelRange {
    std::string kernel;
    std::map<std::string, double> values; // by RangeMetricSpec::key; a metric CUPTI did not give is absent
};

struct RangeProfileArm {
    std::string arm;
    // Non-empty: why this arm's metrics cannot be had (a command or worker arm's kernels run in
    // another process; no CUDA backend). The table says so in the arm's place.
    std::string unavailable;
    std::vector<std::vector<KernelRange>> launches; // per workload launch, its kernels in launch order
    int passes = 0; // replay passes of each kernel
    std::vector<std::string> notes;
};

// The arm from the plugin's range_profile reply (engine/hardware/gpu_backend_abi.h): ranges in
// launch order, `kernels` the kernel sequence of one launch. When the ranges are not whole launches
// of that sequence the arm is unavailable with the counts as reason (never a guessed mapping).
RangeProfileArm range_profile_from_reply(std::string arm, const nlohmann::json& reply);

// Each metric's value per launch, over the launch's kernels named `kernel` (empty: all of them),
// aggregated by the metric's rule; a launch without such a kernel gives no value.
std::map<std::string, std::vector<double>> per_launch_values(const RangeProfileArm& arm, const std::string& kernel);

// The kernel names of an arm in first-launch order.
std::vector<std::string> kernel_names(const RangeProfileArm& arm);

// Each metric's per-launch mean with n and spread (metric_diff's repetition_stats), by key.
std::map<std::string, ArmLaneStats> per_launch_stats(const RangeProfileArm& arm, const std::string& kernel);

} // namespace kwb
