// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <optional>
#include <string>

// The GPU at a CUDA device index as this machine sees it, for arms whose code kwb does not run
// itself (an external command that uses a GPU): the GPU backend plugin's hardware sheet when it
// loads (CUDA's numbering, as the embedded workloads use), else NVML's device at that index. So a
// command on the H200 records the H200, its NVML clocks and its A/A history, not the host's CPU.
namespace kwb {

// Nullopt when neither the plugin nor NVML sees a device at `index`.
std::optional<DeviceIdentity> visible_gpu(int index);

// Why visible_gpu(index) is nullopt, in one line (empty when it is not): "no CUDA device 3 here
// (the GPU backend: ...; NVML: ...)".
std::string no_visible_gpu_reason(int index);

} // namespace kwb
