// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sampling/sample_source.h"

#include <string>
#include <string_view>
#include <vector>

// Which of a run's lanes a person reads first, in what order, and how a lane's value axis is
// bounded. The live view asks these; a run records 20-26 lanes and drawing them all at once left
// each about 25 pixels high (issue 30).
namespace kwb {

// Who produces a lane: the GPU's counters (CUPTI PM sampling), NVML, the host (/proc), or the
// workload itself (its readings, e.g. the TTFT and ITL of each request).
enum class LaneSource { cupti, nvml, host, workload };
LaneSource lane_source(std::string_view name);

// The lanes shown before anyone asks for more, in display order, chosen from `lanes` (those the
// run has; a lane absent from it is never named):
//   the workload's own latency lanes (a time unit: TTFT, ITL, ...);
//   a GPU run (any CUPTI or NVML lane): occupancy, HBM throughput (dram_pct), the SM clock (the
//   CUPTI one, NVML's only when CUPTI's is missing: NVML reads high under tensor load) and power;
//   a CPU run: the benchmark's CPU use (cpu_util, bench_thread_cpu) and the other processes' load
//   (other_cpu, the matched-controls check).
// The repetitions' own latency (the study's metric) is not a lane: it is always drawn.
std::vector<std::string> default_lanes(const std::vector<MetricInfo>& lanes);

// Where a lane sorts among the others (smaller first): the workload's latency lanes, then the
// binding resources, clocks and power, then the host; lanes not known here after all of them.
// Ties (two unknown lanes) keep their arrival order.
int lane_display_rank(std::string_view name, std::string_view unit);

// A percentage lane's axis is its whole scale, [0, 100], whatever it reads: a reading above 100
// is an error of the counter, not a reason to squeeze every other reading into the bottom half.
bool is_percent_unit(std::string_view unit);
inline constexpr double kPercentAxisLow = 0.0;
inline constexpr double kPercentAxisHigh = 100.0;

} // namespace kwb
