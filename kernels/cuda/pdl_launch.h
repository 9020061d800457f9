// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Programmatic dependent launch (PDL, sm_90), the one way the plugin's kernels use it. A kernel
// launched with it may start while the kernel before it in the stream is still running: it issues
// the loads that do not depend on that kernel (a GEMV's weights), then waits in pdl_wait() until
// the previous grid has finished and its writes are visible. pdl_trigger() lets the next kernel be
// scheduled once every block of this one has triggered; that kernel's own wait still holds it until
// this grid has finished. Without the launch attribute both are no-ops, so one kernel serves
// either launch.
//
// The rule that keeps a chain of such kernels correct: every block of a kernel launched with PDL
// calls pdl_wait() before it reads or writes anything another kernel touches, and before it exits
// (a block that leaves early would let its grid finish before the grid it depends on).
#include "cuda_check.h"

#include <utility>

namespace kwb::cuda {

__device__ __forceinline__ void pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_trigger()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...), with PDL when `pdl` (and the kernel waits).
template<typename... Params, typename... Args>
void launch_kernel(
    bool pdl, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, Args&&... args)
{
    cudaLaunchAttribute attr[1] {};
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    KWB_CUDA(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

} // namespace kwb::cuda
