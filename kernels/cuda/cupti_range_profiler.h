// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The CUPTI range profiler over a few launches of one prepared workload, for the plugin's
// range_profile entry (engine/hardware/gpu_backend_abi.h, KwbGpuRangeProfilerApi).
#include "gpu_workload.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kwb::cuda::cupti {

// The reply documented at KwbGpuRangeProfilerApi::range_profile (without "verified"); throws
// GpuError / ConfigError with one line when CUPTI or the workload fails.
nlohmann::json range_profile(
    GpuWorkload& workload, cudaStream_t stream, int device, int launches, const std::vector<std::string>& metrics);

} // namespace kwb::cuda::cupti
