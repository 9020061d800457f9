// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_catalogue.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// The hardware sheet's traps (methodology phase 2; the playbook's "Key hardware traps"): what a
// chosen launch configuration leaves on a given GPU, and the known pitfalls of its architecture.
// Pure: the limits come from a device of `kwb devices --json` or a catalogue part, the
// configuration from the workload (workloads/descriptions/block_needs.h). The hardware page and kwb ask
// these functions; no widget re-derives them.
namespace kwb {

// What one thread block of a configuration needs, computed from its parameters.
struct BlockNeeds {
    std::string config; // "block 128x128x32, 3 stages"
    double smem_bytes = 0; // shared memory per block
    int threads = 0; // threads per block
};

// The per-SM limits a configuration is checked against.
struct GpuLimits {
    std::string name; // "NVIDIA H200"
    std::string sm; // compute capability, "9.0"
    double smem_per_sm_bytes = 0;
    double smem_per_block_optin_bytes = 0;
    int threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    std::string from; // "device sheet" or "catalogue"
};

// A CUDA device object (its own limits; the catalogue's where the device did not report one).
// Null for a CPU or anything without a shared-memory size.
std::optional<GpuLimits> gpu_limits(const nlohmann::json& device);
GpuLimits gpu_limits(const GpuPart& part);

// CUDA reserves this much shared memory per resident block on sm_80 and later
// (cudaDevAttrReservedSharedMemoryPerBlock): it counts against the SM, not against the block.
inline constexpr double kReservedSmemPerBlock = 1024;
// The playbook's smem-bound signature: one block per SM with more than this per block.
inline constexpr double kSmemBoundBytes = 90 * 1024;

// Blocks of one configuration resident per SM as shared memory, threads and the block limit
// allow. Registers are known only to the compiled kernel: the GPU backend's check_config reports
// the exact figure, so this is an upper bound.
struct BlockOccupancy {
    bool fits = false; // shared memory per block within the opt-in limit
    int blocks_per_sm = 0;
    std::string limiter; // "shared memory", "threads", "blocks per SM"
};
BlockOccupancy block_occupancy(const BlockNeeds& needs, const GpuLimits& limits);

struct TrapWarning {
    std::string text; // one line with the numbers
    std::string rule; // the playbook rule it applies (the page's tooltip)
};

// "baseline (block 128x128x64, 4 stages): 136 KiB of shared memory per block leaves 1 block per SM":
// the line the page shows for every configuration, trap or not.
std::string occupancy_line(const std::string& who, const BlockNeeds& needs, const GpuLimits& limits);
// The traps of one configuration on one GPU: it does not fit, or it leaves one block per SM with
// more than 90 KiB of shared memory (smem-bound: a tile tuned for a bigger part).
std::vector<TrapWarning> config_traps(const std::string& who, const BlockNeeds& needs, const GpuLimits& limits);
// The architecture's known pitfalls from the playbook (no native FP8 or FP4 mma, 100 KB parts
// running Hopper-tuned tiles, cuBLASLt FP8 layout on Ada, sm_90a-only kernels).
std::vector<TrapWarning> architecture_traps(const GpuLimits& limits);

} // namespace kwb
