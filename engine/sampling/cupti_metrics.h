// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

// The CUPTI PM-sampling counters kwb collects live on a GPU, and the lanes computed from them.
// All 16 fit one PM-sampling pass on the H200 (GH100; checked offline with the Profiler Host API,
// scripts/cupti/metric_deps.cpp, as shared/notes/cupti-h200.md section 3.2 describes).
//
// Why lanes are computed rather than read as CUPTI's own ratios: on GH100 the PM counters come
// from separate counter domains (the TPC.* triage counters, and the SM's own), each sampled on its
// own. A CUPTI ratio whose numerator and denominator come from two domains is not taken over one
// window: `TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_active`
// divides a TPC counter by sm__cycles_active (NVPW's raw dependencies say so), and the recorded
// H200 studies show such lanes at 1.2-7x their neighbours in single samples (fma_pct 624 %,
// tensor_pct 484 %, sm_pct 703 %), while same-domain ratios (occupancy, ipc) never left their
// range. So every computed ratio here takes numerator and denominator from one domain: the TPC
// pipe counters over TPC.TriageCompute.sm__cycles_active, against each counter's own peak per
// cycle (its `.avg.peak_sustained`). Two ratios still cross domains, SM cycles active over elapsed
// (sm_active_pct) and the factor that turns sm_pct into a share of elapsed cycles; their skew is
// what the range rule (study/lane_range.h) clamps or drops.
namespace kwb {

// What PM sampling collects, in the order of KwbPmSample::values.
inline constexpr std::array<std::string_view, 16> kCuptiCollected {{
    "sm__warps_active_realtime.avg.pct_of_peak_sustained_active", // 0
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", // 1
    "sm__cycles_active.avg.pct_of_peak_sustained_elapsed", // 2
    "gpc__cycles_elapsed.avg.per_second", // 3
    "dram__bytes_read.sum.per_second", // 4
    "dram__bytes_write.sum.per_second", // 5
    "pcie__throughput.avg.pct_of_peak_sustained_elapsed", // 6
    "TPC.TriageCompute.sm__cycles_active.avg", // 7: the TPC domain's active cycles
    "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg", // 8
    "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.peak_sustained", // 9
    "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg", // 10
    "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.peak_sustained", // 11
    "TPC.TriageCompute.sm__inst_executed_realtime.avg", // 12: issue
    "TPC.TriageCompute.sm__inst_executed_realtime.avg.peak_sustained", // 13
    "TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.avg", // 14
    "TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.avg.peak_sustained", // 15
}};

// How a lane is computed from the collected values.
enum class CuptiFormula {
    Direct, // collected[a] x scale
    PctOfActive, // 100 x collected[a] / (collected[b] peak per cycle x collected[c] active cycles)
    Busiest, // the largest kCuptiBusiestOf ratio over collected[c], x collected[a] / 100 (capped at 1)
};

struct CuptiLane {
    std::string_view lane; // the lane name in the study and the stream
    std::string_view unit;
    CuptiFormula formula;
    std::size_t a, b, c; // indices into kCuptiCollected
    double scale; // Direct: CUPTI's 1/s and B/s into MHz and GB/s
    std::string_view meaning;
    std::string_view ncu; // the metric `ncu` reports for the same quantity (scripts/gpu/ncu_agreement.sh)
};

inline constexpr std::size_t kNone = 0;

inline constexpr std::array<CuptiLane, 10> kCuptiLanes {{
    {"occupancy", "%", CuptiFormula::Direct, 0, kNone, kNone, 1.0,
        "achieved occupancy: active warps over the SM's maximum, % (active cycles)",
        "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"dram_pct", "%", CuptiFormula::Direct, 1, kNone, kNone, 1.0, "HBM throughput, % of peak (elapsed)",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"sm_pct", "%", CuptiFormula::Busiest, 2, kNone, 7, 1.0,
        "SM throughput: the busiest of the tensor, FMA and ALU pipes and instruction issue, % of peak (elapsed)",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"tensor_pct", "%", CuptiFormula::PctOfActive, 8, 9, 7, 1.0, "tensor pipe active, % of active cycles",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"},
    {"fma_pct", "%", CuptiFormula::PctOfActive, 10, 11, 7, 1.0, "FMA pipe issue, % of peak (active cycles)",
        "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"},
    {"sm_active_pct", "%", CuptiFormula::Direct, 2, kNone, kNone, 1.0, "SMs with work, % of elapsed cycles",
        "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"},
    {"sm_clock", "MHz", CuptiFormula::Direct, 3, kNone, kNone, 1e-6,
        "SM clock from the counters (NVML reads high under tensor load)", "gpc__cycles_elapsed.avg.per_second"},
    {"dram_read", "GB/s", CuptiFormula::Direct, 4, kNone, kNone, 1e-9, "HBM read bandwidth",
        "dram__bytes_read.sum.per_second"},
    {"dram_write", "GB/s", CuptiFormula::Direct, 5, kNone, kNone, 1e-9, "HBM write bandwidth",
        "dram__bytes_write.sum.per_second"},
    {"pcie_pct", "%", CuptiFormula::Direct, 6, kNone, kNone, 1.0, "PCIe throughput, % of peak (elapsed)",
        "pcie__throughput.avg.pct_of_peak_sustained_elapsed"},
}};

// The sub-throughputs sm_pct takes the busiest of: (counter, its peak per cycle), all TPC domain.
inline constexpr std::array<std::array<std::size_t, 2>, 4> kCuptiBusiestOf {{{8, 9}, {10, 11}, {12, 13}, {14, 15}}};

// Lanes kwb recorded once and no longer does, with why: a lane that cannot agree with `ncu
// --clock-control none` is not evidence (issue 30; bench/results/2026-12-02-h200-evidence/
// ncu-agreement.md). Studies recorded before keep them; lane_source() still names their source,
// and the metric diff leaves them out.
struct RetiredCuptiLane {
    std::string_view lane;
    std::string_view reason;
};
inline constexpr std::array<RetiredCuptiLane, 3> kCuptiRetiredLanes {{
    {"l2_pct",
        "LTS.TriageCompute.lts__throughput read 51% on the copy and 34% on the paged decode where ncu's "
        "lts__throughput read 93% and 79%: the triage counter sees only part of the L2's traffic"},
    {"ipc",
        "sm__inst_executed_realtime per active cycle read 1.25 on the paged decode and 0.46 on the cuBLASLt GEMM "
        "where ncu's sm__inst_executed.avg.per_cycle_active read 1.62 and 0.65"},
    {"smem_pipe_pct", "read the same counter as tensor_pct in every recorded study (one counter under two names)"},
}};

// Why `lane` is no longer recorded; empty when it is not a retired lane.
std::string_view cupti_retired_reason(std::string_view lane);

// The lanes' values, in kCuptiLanes order and units, from one sample's collected values
// (kCuptiCollected order). A ratio whose denominator is not positive reads 0 (no active cycles:
// nothing ran).
std::array<double, kCuptiLanes.size()> cupti_lane_values(const double* collected);

std::optional<std::size_t> cupti_collected_index(std::string_view expression);

} // namespace kwb
