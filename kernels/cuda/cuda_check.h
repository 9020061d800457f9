// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every CUDA call of the plugin goes through KWB_CUDA; a failure becomes a GpuError carrying one
// line (the call, its file:line and CUDA's message), which the ABI glue turns into {"error": ...}.
// Exceptions never cross the C boundary.
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace kwb::cuda {

struct GpuError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A configuration the device cannot run: refused before anything is allocated.
struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cuda(cudaError_t err, const char* what, const char* file, int line)
{
    throw GpuError(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " + cudaGetErrorName(err)
        + " (" + cudaGetErrorString(err) + ")");
}

} // namespace kwb::cuda

#define KWB_CUDA(call)                                                                                                 \
    do {                                                                                                               \
        const cudaError_t kwb_err_ = (call);                                                                           \
        if (kwb_err_ != cudaSuccess)                                                                                   \
            ::kwb::cuda::throw_cuda(kwb_err_, #call, __FILE__, __LINE__);                                              \
    } while (0)

// After a kernel launch: a bad configuration shows up at once, a fault later at a synchronisation.
#define KWB_CUDA_LAUNCHED(what) KWB_CUDA(cudaGetLastError())
