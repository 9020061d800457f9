// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The kernels of tiny_llm's serving path only: RoPE with the K/V scatter into the paged cache,
// greedy argmax on the device, the sequence lengths (the decode step's GEMV: tiny_llm_gemv.cuh,
// whose LM head picks the fused step's tokens itself with argmax_merge's rule).
#include "tiny_llm_kernels.cuh"

#include <cuda_fp8.h>

namespace kwb::cuda::tllm {

// Rows of the fused QKV projection [rows][hidden + 2 kv_dim] (fp32), `per` positions per
// sequence ending at seq_len[b] - 1: rotates the (2i, 2i+1) pairs of Q and K by the position's
// angles (cos/sin table [pos][D/2], the CPU backend's values), writes Q, K, V in bf16 (the
// attention kernels' packed layout) and K, V into the sequence's page of the cache: bf16, or fp8
// e4m3 as value / the KV head's scale (saturating). With `amax`, also the largest |K| and |V| of
// each KV head ([2][kv_heads] as float bits), from which the fp8 scales are calibrated. A row's
// pairs spread over gridDim.y blocks (one block of a 1-row decode step would walk them alone).
struct RopeArgs {
    const float* qkv;
    const float2* rope; // [max_pos][D/2]: (cos, sin)
    const int* seq_len; // [batch]
    const int* page_table; // [batch][max_pages]
    __nv_bfloat16 *q, *k, *v; // [rows][heads|kv_heads][D]
    void *k_pool, *v_pool; // this layer's [pages][kv_heads][page_size][D] of KV
    int hidden, kv_dim, head_dim, per, page_size, max_pages;
    const float* kv_scale = nullptr; // this layer's K then V scales, [2][kv_heads] (fp8)
    unsigned* amax = nullptr; // [2][kv_heads]
};

template<typename KV> __device__ __forceinline__ void store_kv_pair(KV* at, float x0, float x1, float scale);
template<> __device__ __forceinline__ void store_kv_pair<__nv_bfloat16>(__nv_bfloat16* at, float x0, float x1, float)
{
    *reinterpret_cast<__nv_bfloat162*>(at) = __floats2bfloat162_rn(x0, x1);
}
template<>
__device__ __forceinline__ void store_kv_pair<__nv_fp8_e4m3>(__nv_fp8_e4m3* at, float x0, float x1, float scale)
{
    *reinterpret_cast<__nv_fp8x2_e4m3*>(at) = __nv_fp8x2_e4m3(make_float2(x0 / scale, x1 / scale));
}

// Column pair (col, col + 1) of QKV row `row`: rotated (Q, K), stored as bf16 into q / k / v and
// (K, V) into the row's page of the cache. Used by rope_scatter and by the decode step's QKV GEMV,
// whose epilogue ends here. Lengths and pages are read through L2 (__ldcg): the GEMV may run
// under PDL, where a stale L1 line of the previous step's lengths would be wrong.
template<typename KV>
__device__ __forceinline__ void rope_store(const RopeArgs& a, int row, int col, float x0, float x1)
{
    const int b = row / a.per, t = row % a.per;
    const int pos = __ldcg(a.seq_len + b) - a.per + t;
    const int c = col < a.hidden ? col : col < a.hidden + a.kv_dim ? col - a.hidden : col - a.hidden - a.kv_dim;
    if (col < a.hidden + a.kv_dim) { // Q or K: rotate
        const float2 cs = a.rope[static_cast<std::size_t>(pos) * (a.head_dim / 2) + (c % a.head_dim) / 2];
        const float r0 = x0 * cs.x - x1 * cs.y, r1 = x0 * cs.y + x1 * cs.x;
        x0 = r0, x1 = r1;
    }
    const __nv_bfloat162 pair = __floats2bfloat162_rn(x0, x1);
    if (col < a.hidden) {
        *reinterpret_cast<__nv_bfloat162*>(a.q + static_cast<std::size_t>(row) * a.hidden + c) = pair;
        return;
    }
    const int kv_heads = a.kv_dim / a.head_dim;
    const int page = __ldcg(a.page_table + b * a.max_pages + pos / a.page_size), slot = pos % a.page_size;
    const bool is_k = col < a.hidden + a.kv_dim;
    *reinterpret_cast<__nv_bfloat162*>((is_k ? a.k : a.v) + static_cast<std::size_t>(row) * a.kv_dim + c) = pair;
    const int h = c / a.head_dim, d = c % a.head_dim, which = (is_k ? 0 : kv_heads) + h;
    const std::size_t at = ((static_cast<std::size_t>(page) * kv_heads + h) * a.page_size + slot) * a.head_dim + d;
    store_kv_pair(static_cast<KV*>(is_k ? a.k_pool : a.v_pool) + at, x0, x1, a.kv_scale ? a.kv_scale[which] : 1.f);
    if (a.amax)
        atomicMax(a.amax + which, __float_as_uint(fmaxf(fabsf(x0), fabsf(x1))));
}

template<typename KV> __global__ void rope_scatter(const RopeArgs a)
{
    const int row = blockIdx.x, width = a.hidden + 2 * a.kv_dim;
    const float* in = a.qkv + static_cast<std::size_t>(row) * width;
    for (int j = blockIdx.y * blockDim.x + threadIdx.x; j < width / 2; j += blockDim.x * gridDim.y)
        rope_store<KV>(a, row, 2 * j, in[2 * j], in[2 * j + 1]);
}

// Greedy choice of sequence b (one block of kArgmaxThreads each): the first index of the largest
// logit, into next[b] and history[b * history_stride + step]. Warp shuffles, then one warp.
// After a prefill and an unfused decode step (the fused step's LM head GEMV picks its tokens
// itself); waits for the previous kernel in case it is launched with PDL.
constexpr int kArgmaxThreads = 1024;
__device__ __forceinline__ void argmax_merge(float& bv, int& bi, float ov, int oi)
{
    if (ov > bv || (ov == bv && oi < bi))
        bv = ov, bi = oi;
}
__global__ void __launch_bounds__(kArgmaxThreads)
    argmax_tokens(const float* logits, int vocab, int* next, int* history, int history_stride, int step)
{
    __shared__ float best_v[32];
    __shared__ int best_i[32];
    pdl_wait();
    const float* row = logits + static_cast<std::size_t>(blockIdx.x) * vocab;
    float bv = -INFINITY;
    int bi = 0x7fffffff;
#pragma unroll 8 // eight strides' loads in flight at once (ncu: 9.3 -> 8.7 us over 32000 logits)
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
        argmax_merge(bv, bi, __ldcg(row + i), i);
    for (int o = 16; o > 0; o >>= 1)
        argmax_merge(bv, bi, __shfl_xor_sync(0xffffffffu, bv, o), __shfl_xor_sync(0xffffffffu, bi, o));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        best_v[warp] = bv, best_i[warp] = bi;
    __syncthreads();
    if (warp == 0) {
        bv = lane < static_cast<int>(blockDim.x >> 5) ? best_v[lane] : -INFINITY;
        bi = lane < static_cast<int>(blockDim.x >> 5) ? best_i[lane] : 0x7fffffff;
        for (int o = 16; o > 0; o >>= 1)
            argmax_merge(bv, bi, __shfl_xor_sync(0xffffffffu, bv, o), __shfl_xor_sync(0xffffffffu, bi, o));
        if (lane == 0) {
            next[blockIdx.x] = bi;
            if (history)
                history[blockIdx.x * history_stride + step] = bi;
        }
    }
}

// seq_len[b] = value (a prefill's; a decode step grows the lengths in its embed kernel).
__global__ void set_lengths(int* seq_len, int batch, int value)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < batch)
        seq_len[b] = value;
}

} // namespace kwb::cuda::tllm
