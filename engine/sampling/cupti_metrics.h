// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <string_view>

// The CUPTI PM-sampling metric set kwb records live on a GPU, with the lane each becomes. All of
// them were measured on the H200 (GH100) to fit one PM-sampling pass together
// (shared/notes/cupti-h200.md section 4.2); the ncu names of occupancy, SM and tensor-pipe
// throughput need several passes, so the `_realtime` / `TriageCompute` variants are used. Their
// means over a kernel agree with ncu within 1 point there (section 5).
namespace kwb {

struct CuptiMetric {
    std::string_view lane; // the lane name in the study and the stream
    std::string_view unit;
    std::string_view cupti; // the CUPTI PM-sampling metric
    std::string_view meaning;
};

inline constexpr std::array<CuptiMetric, 13> kCuptiMetrics {{
    {"occupancy", "%", "sm__warps_active_realtime.avg.pct_of_peak_sustained_active",
        "achieved occupancy: active warps over the SM's maximum"},
    {"dram_pct", "%", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "HBM throughput, % of peak"},
    {"sm_pct", "%", "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "SM throughput: the busiest SM sub-unit, % of peak"},
    {"tensor_pct", "%", "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_active",
        "tensor pipe active, % of cycles"},
    {"fma_pct", "%", "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_active",
        "FMA pipe, % of peak issue"},
    {"l2_pct", "%", "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput, % of peak"},
    {"smem_pipe_pct", "%", "sm__pipe_shared_cycles_active_realtime.avg.pct_of_peak_sustained_active",
        "shared pipe active, % of cycles"},
    {"sm_active_pct", "%", "sm__cycles_active.avg.pct_of_peak_sustained_elapsed", "SMs with work, % of cycles"},
    {"ipc", "inst/cycle", "sm__inst_executed_realtime.avg.per_cycle_active", "instructions per active cycle per SM"},
    {"sm_clock", "MHz", "gpc__cycles_elapsed.avg.per_second",
        "SM clock from the counters (NVML reads high under tensor load)"},
    {"dram_read", "GB/s", "dram__bytes_read.sum.per_second", "HBM read bandwidth"},
    {"dram_write", "GB/s", "dram__bytes_write.sum.per_second", "HBM write bandwidth"},
    {"pcie_pct", "%", "pcie__throughput.avg.pct_of_peak_sustained_elapsed", "PCIe throughput, % of peak"},
}};

// CUPTI reports per-second rates in 1/s and B/s; lanes use MHz and GB/s.
inline double cupti_lane_scale(std::string_view unit)
{
    if (unit == "MHz")
        return 1e-6;
    if (unit == "GB/s")
        return 1e-9;
    return 1.0;
}

} // namespace kwb
