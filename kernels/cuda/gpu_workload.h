// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the plugin needs of a CUDA workload: the timing harness launches it, the verify step
// compares it with its reference, and check_config asks what one configuration needs of a device
// before anything is allocated. Each workload reads only its own parameters from the engine's
// parameter object (which also holds CPU-only ones and `cache`, read by the engine).
#include <cstdint>
#include <cuda_runtime.h>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kwb::cuda {

// What one launch configuration needs; check_config compares it with the device's limits.
struct ResourceNeeds {
    std::string what; // "block 128x128x32, 3 stages": how messages name the configuration
    const void* kernel = nullptr; // the __global__ function the launch uses (registers, occupancy)
    int threads_per_block = 0;
    std::size_t dynamic_smem_bytes = 0;
    // Non-empty when this build has no kernel for the configuration (kernel is then null): the
    // device limits are still checked first, so an impossible tile is refused with its numbers.
    std::string not_built;
};

class GpuWorkload {
public:
    virtual ~GpuWorkload() = default;
    // Enqueues one launch on `stream`; no synchronisation.
    virtual void launch(cudaStream_t stream) = 0;
    // Runs once more with poisoned outputs and compares with the reference:
    // {"ok", "max_abs_error", "max_rel_error", "tolerance", "compared", ...}.
    virtual nlohmann::json verify(cudaStream_t stream) = 0;
    virtual double flops_per_launch() const = 0;
    virtual double bytes_per_launch() const = 0;
    // Workload-specific extras reported with every run (may be empty).
    virtual nlohmann::json metrics() const { return nlohmann::json::object(); }
    // The id of the pooled buffer set it runs on (buffer_pool.h), 0 for buffers of its own.
    virtual std::uint64_t buffer_set() const { return 0; }
};

struct WorkloadKind {
    std::string name;
    // Throws ConfigError (bad or unsupported parameters); no device work.
    std::function<ResourceNeeds(const nlohmann::json& params)> needs;
    // Allocates and seeds on the current device; throws ConfigError or GpuError.
    std::function<std::unique_ptr<GpuWorkload>(const nlohmann::json& params, cudaStream_t stream)> prepare;
};

// The workloads this plugin has code for, in the order workloads_json lists them.
const std::vector<WorkloadKind>& workload_kinds();
const WorkloadKind* find_workload(const std::string& name);

// Parameter readers: a missing parameter takes `fallback`; a present one of the wrong type or
// range is a ConfigError naming it.
long long int_param(const nlohmann::json& params, const std::string& workload, const std::string& name,
    long long fallback, long long lo, long long hi);
std::string string_param(const nlohmann::json& params, const std::string& workload, const std::string& name,
    const std::string& fallback, const std::vector<std::string>& allowed);
// The engine's test hook for the correctness gate ("inject_fault": "wrong-result").
bool wants_wrong_result(const nlohmann::json& params);
// The GPU tests' hooks, reached through the plugin's ABI only: "inject_fault": `fault`.
bool wants_fault(const nlohmann::json& params, const std::string& fault);

} // namespace kwb::cuda
