// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whether one launch configuration fits a device, answered from the device's limits and the
// compiled kernel's attributes without allocating or launching. Refusals carry the numbers:
// "block 256x256x64, 4 stages needs 276 KiB of shared memory per block; this GPU allows 227 KiB".
#include "gpu_workload.h"

#include <nlohmann/json.hpp>

namespace kwb::cuda {

// The architectures compiled in, e.g. "sm_80, sm_89, sm_90 (+PTX compute_90)".
std::string built_archs();

// Throws ConfigError when the GPU has no code in this build or the configuration does not fit;
// otherwise {"ok": true, "smem_bytes_per_block", "threads_per_block", "blocks_per_sm", "registers_per_thread", ...}.
nlohmann::json check_needs(const ResourceNeeds& needs, int device);

// Raises the kernel's dynamic shared memory limit when it asks for more than the default 48 KiB.
void allow_dynamic_smem(const void* kernel, std::size_t bytes);

} // namespace kwb::cuda
