// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Which paged decode kernel instance runs, and its dynamic shared memory: the one owner of that
// choice for the attention_decode workload and tiny_llm's steps. The kernels are templates over
// head dim D, group size G (query heads per KV head: 1, 2, 4, 8) and the cache element; the
// tensor-core kernel (attention_decode_mma.cuh) reads bf16 only.
#include "attention_decode_mma.cuh"

namespace kwb::cuda::decode {

using Kernel = void (*)(Params);

struct Selected {
    Kernel kernel;
    int smem; // bytes of dynamic shared memory at the requested ring depth
};

template<int D, typename T> Selected simt_for_group(int g, int stages)
{
    switch (g) {
    case 1:
        return {decode_kernel<D, 1, T>, smem_bytes<D, 1, T>(stages)};
    case 2:
        return {decode_kernel<D, 2, T>, smem_bytes<D, 2, T>(stages)};
    case 4:
        return {decode_kernel<D, 4, T>, smem_bytes<D, 4, T>(stages)};
    default:
        return {decode_kernel<D, 8, T>, smem_bytes<D, 8, T>(stages)};
    }
}

template<int D> Selected mma_for_group(int g, int stages)
{
    switch (g) {
    case 1:
        return {decode_mma_kernel<D, 1>, mma_smem_bytes<D, 1>(stages)};
    case 2:
        return {decode_mma_kernel<D, 2>, mma_smem_bytes<D, 2>(stages)};
    case 4:
        return {decode_mma_kernel<D, 4>, mma_smem_bytes<D, 4>(stages)};
    default:
        return {decode_mma_kernel<D, 8>, mma_smem_bytes<D, 8>(stages)};
    }
}

// head_dim 64 or 128; mma only with a bf16 cache (the callers refuse mma with fp8 first).
inline Selected select_kernel(bool mma, bool fp8, int head_dim, int group, int stages)
{
    if (mma)
        return head_dim == 128 ? mma_for_group<128>(group, stages) : mma_for_group<64>(group, stages);
    if (head_dim == 128)
        return fp8 ? simt_for_group<128, __nv_fp8_e4m3>(group, stages)
                   : simt_for_group<128, __nv_bfloat16>(group, stages);
    return fp8 ? simt_for_group<64, __nv_fp8_e4m3>(group, stages) : simt_for_group<64, __nv_bfloat16>(group, stages);
}

} // namespace kwb::cuda::decode
