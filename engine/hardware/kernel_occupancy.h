// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_catalogue.h"
#include "study/kernel_inventory.h"

#include <optional>
#include <string>

// The occupancy a compiled kernel's resources allow on a GPU, from the catalogue's per-SM limits
// (resources/gpus.json): registers per thread (allocated per warp in units of 256), static shared
// memory (plus the 1 KiB CUDA reserves per block), threads and blocks per SM. The block size is
// not in the binary: kwb assumes `block_threads` (256 unless told) and says so.
namespace kwb {

inline constexpr int kAssumedBlockThreads = 256;

struct KernelOccupancy {
    int blocks_per_sm = 0;
    int warps_per_sm = 0;
    double occupancy_pct = 0; // resident warps / the SM's maximum warps
    std::string limiter; // "registers", "shared memory", "threads", "blocks per SM"
};

// nullopt when the kernel's registers are unknown or the part states no per-SM limits.
std::optional<KernelOccupancy> kernel_occupancy(
    const KernelResource& kernel, const GpuPart& part, int block_threads = kAssumedBlockThreads);

// The catalogue part of a study's device: the device in use, else the first CUDA device of its
// hardware sheet (`devices`, kwb devices --json); null when none is known to the catalogue.
const GpuPart* study_gpu_part(const std::string& device_in_use, const nlohmann::json& devices);

} // namespace kwb
