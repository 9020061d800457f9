// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// The GPU catalogue: vendor datasheet figures of the parts the workbench knows
// (resources/gpus.json, compiled in). It is data, not a hardware query, so it belongs to the pure
// analysis library: the formula's hardware constants and the hardware page read it on any machine.
// Measured ceilings (calibration) never go here; they are stored per device in studies.
namespace kwb {

struct GpuPart {
    std::string match; // a substring of the CUDA device name that selects this entry
    std::string name; // "NVIDIA H100 SXM5 80GB"
    std::string sm; // compute capability, "9.0"
    std::string arch; // "sm_90"
    // Counts and sizes are 0 where the sources do not state them (to_json() writes null).
    int sm_count = 0;
    double smem_per_sm_kib = 0; // the shared-memory carve-out maximum per SM
    double smem_per_block_optin_kib = 0; // the most one block may opt into
    int regs_per_sm = 0; // 32-bit registers
    int threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    double l2_mib = 0; // 0: not stated by the sources
    double memory_gb = 0;
    std::optional<double> peak_bf16_tflops; // dense tensor-core figures, no sparsity
    std::optional<double> peak_fp8_tflops;
    std::optional<double> peak_fp32_tflops; // non-tensor FP32
    double peak_hbm_gbs = 0; // memory bandwidth, GB/s (10^9 bytes per second)
    std::string source; // the datasheet each figure comes from
    std::string limits_source; // where the per-SM limits come from

    nlohmann::json to_json() const;
};

// Reads and checks a catalogue document ({"gpus": [...]}); throws FormatError naming the field
// (e.g. "gpus[3].peak_hbm_gbs: must be a positive number").
std::vector<GpuPart> parse_gpu_catalogue(const nlohmann::json& document);

// The bundled catalogue, parsed once.
const std::vector<GpuPart>& gpu_parts();

// The entry whose `match` occurs in `device_name` ending at a word boundary ("A10" names
// "NVIDIA A10", never "NVIDIA A100-SXM4-80GB"); the longest such match wins ("H200 NVL" over
// "H200"). Null when the catalogue does not know the part.
const GpuPart* find_gpu_part(const std::string& device_name);

// The bundled catalogue document as written.
const nlohmann::json& gpu_catalogue_document();

} // namespace kwb
