// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Programmatic dependent launch (PDL) for tiny_llm's decode step. A kernel launched with it may
// start while the kernel before it in the stream is still running: it issues the loads that do
// not depend on that kernel (a GEMV's weights), then waits in pdl_wait() until the previous grid
// has finished and its writes are visible. pdl_trigger() lets the next kernel start early.
// Without the launch attribute both are no-ops, so one kernel serves either launch. A kernel
// launched with PDL must call pdl_wait() before it reads or writes anything another kernel
// touches: the rule of this file's one owner, a decode step launches through launch_kernel().
#include "cuda_check.h"

#include <utility>

namespace kwb::cuda::tllm {

__device__ __forceinline__ void pdl_wait()
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void pdl_trigger()
{
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
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

} // namespace kwb::cuda::tllm
