// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Phase 3: the binding constraint from measurements, by the playbook's license matrix. Pure
// (kwb_analysis): `kwb profile` measures, this decides, the page and the CLI show its words.
//
// Branches, first match wins, each with its threshold (BindingThresholds):
//   compute             tensor or FMA pipe >= pipe_near_peak_pct (80)
//   memory-bandwidth    DRAM throughput > dram_bound_pct (80) of peak, or the declared bytes moved
//                       at >= ceiling_bound_pct (80) of the measured bandwidth ceiling in the timed
//                       run (DRAM % is of the datasheet peak, which no kernel reaches: the H200's
//                       copy tops out at 89 %, and a decode reading 4.4 TB/s timed sat at 67-72 %)
//   smem                1 block per SM and > smem_bound_kib (90) KiB of shared memory per block
//   compute-suboptimal  tensor pipe < tensor_low_pct (40) with occupancy > occupancy_ok_pct (50)
//   launch-overhead     > launches_per_s (200) launches/s and host dispatch > dispatch_share_pct
//                       (30) of the step (the wall-clock share not covered by kernels)
//   scheduler           SMs with work < sm_active_low_pct (60) of cycles: too few blocks, tail
//                       waves, a serialised grid
//   at-extremes         SM and DRAM throughput both >= extremes_pct (60): the kernel sits at the
//                       roofline ridge, no single axis has headroom; or, the matrix's last row,
//                       DRAM and a pipe were measured and no axis is above its threshold
// The branch the matrix leaves implicit is the first (a pipe near peak is compute-bound, not
// "compute-suboptimal"). Without DRAM and a pipe reading the call stays empty and the evidence
// says what was not measured. When the profiled kernels ran slower than the timed run by more than
// disagreement_pct, nothing is called ("not determined", with the numbers in the evidence).
// Warnings: profiled vs timed time per launch differ by more than disagreement_pct; kernels
// cover over 100% of the wall clock; kernels cover so little of the wall clock (outside share >
// dispatch_share_pct) that a kernel-internal call binds only that share.
namespace kwb {

struct BindingThresholds {
    double pipe_near_peak_pct = 80;
    double dram_bound_pct = 80;
    double smem_bound_kib = 90;
    double tensor_low_pct = 40;
    double occupancy_ok_pct = 50;
    double launches_per_s = 200;
    double dispatch_share_pct = 30;
    double sm_active_low_pct = 60;
    double extremes_pct = 60;
    double disagreement_pct = 10; // profiled vs timed kernel time
    double ceiling_bound_pct = 80; // timed bytes rate, % of the measured bandwidth ceiling
};

// The measured evidence (means over the profiled kernels' windows); absent = not measured.
struct BindingEvidenceInput {
    std::optional<double> tensor_pct;
    std::optional<double> fma_pct;
    std::optional<double> dram_pct;
    std::optional<double> sm_pct;
    std::optional<double> occupancy_pct;
    std::optional<double> sm_active_pct;
    std::optional<double> smem_per_block_kib;
    std::optional<int> blocks_per_sm;
    std::optional<double> launches_per_s;
    std::optional<double> kernel_share_pct; // share of wall clock covered by kernels
    std::optional<double> profiled_ms_per_launch; // CUPTI Activity
    std::optional<double> timed_ms_per_launch; // CUDA events of the A/B (baseline)
    // The bytes the workload declares per launch over the timed time (GB/s), and the device's
    // measured bandwidth ceiling (`kwb calibrate`: the larger of read-only and copy) with its name.
    std::optional<double> timed_gbs;
    std::optional<double> bandwidth_ceiling_gbs;
    std::string bandwidth_ceiling_name;
};

struct BindingCall {
    std::string constraint; // a binding.constraint value, or empty
    std::string axis; // the optimisation axis it suggests
    std::vector<std::string> evidence; // the readings and thresholds behind the call
    std::vector<std::string> warnings; // e.g. the profiler view and wall-clock disagree
};

BindingCall classify_binding(const BindingEvidenceInput& in, const BindingThresholds& t = {});

// The evidence as the study's binding.metrics object (name -> value; absent ones left out).
nlohmann::json binding_metrics_json(const BindingEvidenceInput& in);

// The thresholds as the study's binding.thresholds object (name -> value).
nlohmann::json binding_thresholds_json(const BindingThresholds& t);

} // namespace kwb
