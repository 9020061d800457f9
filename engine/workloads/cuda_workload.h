// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/workload.h"

#include <functional>
#include <memory>
#include <string>

// The engine's side of a CUDA workload: a PreparedWorkload that forwards to the GPU backend
// plugin through its C ABI (engine/hardware/gpu_backend_abi.h). The engine describes the
// workload (names, parameters, metrics); the plugin holds the kernels and the timing harness
// (CUDA events around a batch of launches, L2 flushed before each launch in cold mode).
namespace kwb {

struct CudaRunOptions {
    int device = 0;
    bool cold = false; // cache=cold: flush L2 before every launch
    int launches = 1; // the workload's own count until the runner calibrates it
};

// Turns one repetition's plugin figures into the workload's metrics (time_ms always; GB/s,
// TFLOP/s, ... from the bytes and FLOP the plugin counted per launch).
using CudaMetrics = std::function<void(const nlohmann::json& run, std::map<std::string, double>& metrics)>;

// The CUDA device the workloads of this process run on (kwb run --device N); 0 by default.
void select_cuda_device(int device);
int selected_cuda_device();

// The options a workload's resolved parameters ask for: `cache` (hot|cold) and `iterations`
// (launches per repetition until the runner calibrates them), on the selected device.
CudaRunOptions cuda_run_options(const nlohmann::json& params);

// Throws WorkloadError with the plugin's one line when the plugin is missing, the device
// cannot hold the configuration, or allocation fails.
std::unique_ptr<PreparedWorkload> prepare_cuda(
    const std::string& workload, const nlohmann::json& params, const CudaRunOptions& options, CudaMetrics metrics);

// The plugin's check of one configuration against one device's limits, without allocating:
// empty when it fits, else the one-line reason with the numbers. Empty too when no plugin is
// loaded (nothing to check against: `kwb run` refuses the backend itself).
std::string check_cuda_config(const std::string& workload, const nlohmann::json& params, int device);

// The cuda half of a workload's validate(): the plugin's check of `params` on the selected device
// where the cuda backend can run here (without a usable plugin or GPU nothing is checked here and
// `kwb run` checks on the GPU machine). Throws WorkloadError with the plugin's one line.
void validate_cuda_config(const std::string& workload, const nlohmann::json& params);

// Empty when the cuda backend of `workload` can run here; else why not, in one line (no plugin,
// a plugin without code for it).
std::string cuda_unavailable_reason(const std::string& workload);

// Metrics every CUDA workload shares: time_ms (per launch), gbs (bytes/time), tflops (FLOP/time).
void cuda_time_metrics(const nlohmann::json& run, std::map<std::string, double>& metrics);

} // namespace kwb
