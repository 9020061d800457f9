// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "formula/formula.h"
#include "hardware/gpu_catalogue.h"
#include "study/study.h"

#include <nlohmann/json.hpp>
#include <vector>

// The variables a study's prediction formula may use, in three groups (methodology phase 4:
// "hardware x workload constants"):
//  - hardware: the GPU's limits and peaks, from the catalogue part the prediction names
//    (prediction.gpu) or else the study's device sheet (the GPU the study recorded, with its
//    catalogue peaks). Sizes in bytes, peaks in TFLOP/s and GB/s:
//    sm_count, smem_per_sm, smem_per_block_optin, regs_per_sm, threads_per_sm, max_blocks_per_sm,
//    l2_bytes, sm_clock_mhz, peak_bf16_tflops, peak_fp8_tflops, peak_fp32_tflops, peak_hbm_gbs;
//    cpu_cores for the CPU of the sheet.
//  - the arms: every numeric parameter of the formula's experiment as baseline_<name> and
//    treatment_<name> (true/false as 1/0; text parameters are left out).
//  - the engineer's own named constants (prediction.variables), which override the others.
namespace kwb {

// The experiment whose arms the formula sees: the study's last A/B, else its last experiment,
// else none.
const Experiment* formula_experiment(const Study& study);

std::vector<FormulaVariable> gpu_part_variables(const GpuPart& part);
// From one device object of `kwb devices --json` (a CUDA GPU with its "catalogue", or the CPU).
std::vector<FormulaVariable> device_variables(const nlohmann::json& device);
std::vector<FormulaVariable> hardware_variables(const Study& study);
std::vector<FormulaVariable> arm_variables(const Experiment& experiment);

// All of them, one entry per name in the order above; where groups share a name the later group's
// value wins and its note says what it replaced.
std::vector<FormulaVariable> formula_variables(const Study& study);

} // namespace kwb
