// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_backend_abi.h"

#include <filesystem>
#include <string>
#include <vector>

namespace kwb {

// The GPU backend plugin, loaded once on first use. When it cannot load (not built, a CUDA or
// CUPTI library missing, ABI mismatch), api() is null and unavailable_reason() says exactly why,
// in one line.
class GpuBackend {
public:
    static GpuBackend& instance();

    const KwbGpuBackendApi* api() const { return api_; }
    const std::string& unavailable_reason() const { return reason_; }
    const std::filesystem::path& plugin_path() const { return path_; }
    // The range profiler's table (a second entry point of the plugin, gpu_backend_abi.h): null
    // with range_profiler_reason() when the plugin did not load, is older than it, or speaks
    // another version of it.
    const KwbGpuRangeProfilerApi* range_profiler_api() const { return range_api_; }
    const std::string& range_profiler_reason() const { return range_reason_; }
    // The kernels' attributes table (a third entry point): null with kernel_attributes_reason()
    // when the plugin did not load, is older than it, or speaks another version of it.
    const KwbGpuKernelAttributesApi* kernel_attributes_api() const { return attributes_api_; }
    const std::string& kernel_attributes_reason() const { return attributes_reason_; }

    // Where the plugin is searched for: $KWB_GPU_BACKEND (a file) first, then beside the running
    // program (build tree: ../lib; installed: ../lib/<arch>/kernel-workbench).
    static std::vector<std::filesystem::path> candidate_paths();

private:
    GpuBackend();
    void find_range_profiler(void* handle);
    void find_kernel_attributes(void* handle);
    const KwbGpuBackendApi* api_ = nullptr;
    std::string reason_;
    std::filesystem::path path_;
    const KwbGpuRangeProfilerApi* range_api_ = nullptr;
    std::string range_reason_;
    const KwbGpuKernelAttributesApi* attributes_api_ = nullptr;
    std::string attributes_reason_;
};

} // namespace kwb
