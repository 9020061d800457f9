// SPDX-License-Identifier: GPL-3.0-or-later
#include "config_check.h"
#include "cuda_check.h"

#include <cmath>

namespace kwb::cuda {
namespace {

std::string kib(std::size_t bytes)
{
    const double k = bytes / 1024.0;
    char text[32];
    std::snprintf(text, sizeof text, k == std::floor(k) ? "%.0f KiB" : "%.1f KiB", k);
    return text;
}

int attr(cudaDeviceAttr a, int device)
{
    int v = 0;
    KWB_CUDA(cudaDeviceGetAttribute(&v, a, device));
    return v;
}

} // namespace

std::string built_archs()
{
#ifdef KWB_CUDA_ARCHS_TEXT
    return KWB_CUDA_ARCHS_TEXT;
#else
    return "unknown archs";
#endif
}

void allow_dynamic_smem(const void* kernel, std::size_t bytes)
{
    if (bytes > 48 * 1024)
        KWB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

nlohmann::json check_needs(const ResourceNeeds& needs, int device)
{
    const int major = attr(cudaDevAttrComputeCapabilityMajor, device);
    const int minor = attr(cudaDevAttrComputeCapabilityMinor, device);
    const std::string cc = std::to_string(major) + "." + std::to_string(minor);
    // The tensor-core kernels use bf16 mma.sync, ldmatrix and cp.async: sm_80 and later.
    if (major < 8)
        throw ConfigError("this GPU is compute capability " + cc
            + "; the plugin's kernels need 8.0 or later (built for " + built_archs() + ")");
    const std::size_t optin = static_cast<std::size_t>(attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (!needs.kernel) {
        if (needs.dynamic_smem_bytes > optin)
            throw ConfigError(needs.what + " needs " + kib(needs.dynamic_smem_bytes)
                + " of shared memory per block; this GPU allows " + kib(optin));
        throw ConfigError(needs.not_built);
    }
    cudaFuncAttributes fa {};
    if (const cudaError_t err = cudaFuncGetAttributes(&fa, needs.kernel); err != cudaSuccess) {
        cudaGetLastError();
        if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction
            || err == cudaErrorUnsupportedPtxVersion)
            throw ConfigError("this plugin has no code for this GPU (compute capability " + cc + "; built for "
                + built_archs() + ")");
        throw_cuda(err, "cudaFuncGetAttributes", __FILE__, __LINE__);
    }
    const std::size_t smem = needs.dynamic_smem_bytes + fa.sharedSizeBytes;
    if (smem > optin)
        throw ConfigError(
            needs.what + " needs " + kib(smem) + " of shared memory per block; this GPU allows " + kib(optin));
    const int max_threads = attr(cudaDevAttrMaxThreadsPerBlock, device);
    if (needs.threads_per_block > max_threads || needs.threads_per_block > fa.maxThreadsPerBlock)
        throw ConfigError(needs.what + " needs " + std::to_string(needs.threads_per_block)
            + " threads per block; this GPU allows " + std::to_string(std::min(max_threads, fa.maxThreadsPerBlock))
            + " for this kernel (" + std::to_string(fa.numRegs) + " registers per thread)");
    const long regs_per_block = static_cast<long>(fa.numRegs) * needs.threads_per_block;
    const int regs_limit = attr(cudaDevAttrMaxRegistersPerBlock, device);
    if (regs_per_block > regs_limit)
        throw ConfigError(needs.what + " needs " + std::to_string(regs_per_block) + " registers per block ("
            + std::to_string(fa.numRegs) + " per thread); this GPU allows " + std::to_string(regs_limit));
    allow_dynamic_smem(needs.kernel, needs.dynamic_smem_bytes);
    int blocks = 0;
    KWB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, needs.kernel, needs.threads_per_block, needs.dynamic_smem_bytes));
    if (blocks < 1)
        throw ConfigError(needs.what + " fits no block on one multiprocessor (" + kib(smem) + " of shared memory, "
            + std::to_string(needs.threads_per_block) + " threads, " + std::to_string(fa.numRegs)
            + " registers per thread)");
    return {{"ok", true}, {"config", needs.what}, {"smem_bytes_per_block", smem},
        {"smem_bytes_per_block_allowed", optin}, {"threads_per_block", needs.threads_per_block},
        {"registers_per_thread", fa.numRegs}, {"local_bytes_per_thread", fa.localSizeBytes}, {"blocks_per_sm", blocks},
        {"compute_capability", cc}, {"built_for", built_archs()}};
}

} // namespace kwb::cuda
