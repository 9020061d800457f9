// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/lane_selection.h"

#include "sampling/cupti_metrics.h"

#include <algorithm>
#include <array>

namespace kwb {

namespace {

// NvmlSource's and ProcfsSampler's lanes (nvml_source.h, procfs_sampler.cpp); CUPTI's come from
// kCuptiLanes. tst_lane_selection checks NvmlSource's list against this one.
constexpr std::array<std::string_view, 7> kNvmlLanes {
    "nvml_sm_clock", "mem_clock", "temperature", "power", "memory_used", "clock_events", "other_gpu_processes"};
constexpr std::array<std::string_view, 4> kHostLanes {"cpu_util", "bench_thread_cpu", "other_cpu", "rss"};

// The display order of the lanes the samplers record: the binding resources first, then clocks and
// power, then the host.
constexpr auto kOrder
    = std::to_array<std::string_view>({"occupancy", "dram_pct", "sm_pct", "tensor_pct", "sm_active_pct", "fma_pct",
        "dram_read", "dram_write", "sm_clock", "nvml_sm_clock", "mem_clock", "power", "temperature", "clock_events",
        "memory_used", "pcie_pct", "other_gpu_processes", "cpu_util", "bench_thread_cpu", "other_cpu", "rss"});

template<std::size_t N> bool listed(const std::array<std::string_view, N>& list, std::string_view name)
{
    return !name.empty() && std::find(list.begin(), list.end(), name) != list.end();
}

bool is_time_unit(std::string_view unit)
{
    return unit == "ms" || unit == "us" || unit == "ns" || unit == "s";
}

bool has(const std::vector<MetricInfo>& lanes, std::string_view name)
{
    return std::any_of(lanes.begin(), lanes.end(), [&](const MetricInfo& m) { return m.name == name; });
}

bool is_workload_latency(const MetricInfo& m)
{
    return lane_source(m.name) == LaneSource::workload && is_time_unit(m.unit);
}

} // namespace

LaneSource lane_source(std::string_view name)
{
    if (std::any_of(kCuptiLanes.begin(), kCuptiLanes.end(), [&](const CuptiLane& c) { return c.lane == name; })
        || !cupti_retired_reason(name).empty())
        return LaneSource::cupti;
    if (listed(kNvmlLanes, name))
        return LaneSource::nvml;
    if (listed(kHostLanes, name))
        return LaneSource::host;
    return LaneSource::workload;
}

std::vector<std::string> default_lanes(const std::vector<MetricInfo>& lanes)
{
    std::vector<std::string> chosen;
    for (const auto& m : lanes)
        if (is_workload_latency(m))
            chosen.push_back(m.name);
    const bool gpu = std::any_of(lanes.begin(), lanes.end(), [](const MetricInfo& m) {
        const LaneSource s = lane_source(m.name);
        return s == LaneSource::cupti || s == LaneSource::nvml;
    });
    std::vector<std::string_view> wanted;
    if (gpu)
        wanted = {"occupancy", "dram_pct", has(lanes, "sm_clock") ? "sm_clock" : "nvml_sm_clock", "power"};
    else
        wanted = {"cpu_util", "bench_thread_cpu", "other_cpu"};
    for (const auto name : wanted)
        if (has(lanes, name))
            chosen.emplace_back(name);
    std::stable_sort(chosen.begin(), chosen.end(), [&](const std::string& a, const std::string& b) {
        auto unit = [&](const std::string& n) {
            return std::find_if(lanes.begin(), lanes.end(), [&](const MetricInfo& m) { return m.name == n; })->unit;
        };
        return lane_display_rank(a, unit(a)) < lane_display_rank(b, unit(b));
    });
    return chosen;
}

int lane_display_rank(std::string_view name, std::string_view unit)
{
    if (is_workload_latency({std::string(name), std::string(unit)}))
        return 0;
    const auto it = std::find(kOrder.begin(), kOrder.end(), name);
    if (it != kOrder.end())
        return 1 + static_cast<int>(it - kOrder.begin());
    return 1 + static_cast<int>(kOrder.size());
}

bool is_percent_unit(std::string_view unit)
{
    return unit == "%";
}

} // namespace kwb
