// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The kernels of tiny_llm's serving path only: RoPE with the K/V scatter into the paged cache,
// greedy argmax on the device, the sequence lengths, and the batch-1..8 GEMV of a decode step
// (with the SwiGLU fused into the gate/up projection's).
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

template<typename KV> __global__ void rope_scatter(const RopeArgs a)
{
    const int row = blockIdx.x, b = row / a.per, t = row % a.per;
    const int pos = a.seq_len[b] - a.per + t;
    const int width = a.hidden + 2 * a.kv_dim;
    const float* in = a.qkv + static_cast<std::size_t>(row) * width;
    const int page = a.page_table[b * a.max_pages + pos / a.page_size], slot = pos % a.page_size;
    const int kv_heads = a.kv_dim / a.head_dim;
    for (int j = blockIdx.y * blockDim.x + threadIdx.x; j < width / 2; j += blockDim.x * gridDim.y) {
        const int col = 2 * j;
        float x0 = in[col], x1 = in[col + 1];
        const int c = col < a.hidden ? col : col < a.hidden + a.kv_dim ? col - a.hidden : col - a.hidden - a.kv_dim;
        if (col < a.hidden + a.kv_dim) { // Q or K: rotate
            const float2 cs = a.rope[static_cast<std::size_t>(pos) * (a.head_dim / 2) + (c % a.head_dim) / 2];
            const float r0 = x0 * cs.x - x1 * cs.y, r1 = x0 * cs.y + x1 * cs.x;
            x0 = r0, x1 = r1;
        }
        const __nv_bfloat162 pair = __floats2bfloat162_rn(x0, x1);
        if (col < a.hidden) {
            *reinterpret_cast<__nv_bfloat162*>(a.q + static_cast<std::size_t>(row) * a.hidden + c) = pair;
            continue;
        }
        const bool is_k = col < a.hidden + a.kv_dim;
        *reinterpret_cast<__nv_bfloat162*>((is_k ? a.k : a.v) + static_cast<std::size_t>(row) * a.kv_dim + c) = pair;
        const int h = c / a.head_dim, d = c % a.head_dim, which = (is_k ? 0 : kv_heads) + h;
        const std::size_t at = ((static_cast<std::size_t>(page) * kv_heads + h) * a.page_size + slot) * a.head_dim + d;
        store_kv_pair(static_cast<KV*>(is_k ? a.k_pool : a.v_pool) + at, x0, x1, a.kv_scale ? a.kv_scale[which] : 1.f);
        if (a.amax)
            atomicMax(a.amax + which, __float_as_uint(fmaxf(fabsf(x0), fabsf(x1))));
    }
}

// Greedy choice of sequence b (one block of kArgmaxThreads each): the first index of the largest
// logit, into next[b] and history[b * history_stride + step]. Warp shuffles, then one warp.
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
    const float* row = logits + static_cast<std::size_t>(blockIdx.x) * vocab;
    float bv = -INFINITY;
    int bi = 0x7fffffff;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
        argmax_merge(bv, bi, row[i], i);
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

// seq_len[b] = value (value >= 0) or seq_len[b] += 1 (value < 0: one decode step appended).
__global__ void set_lengths(int* seq_len, int batch, int value)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < batch)
        seq_len[b] = value >= 0 ? value : seq_len[b] + 1;
}

// y[r][o] = sum_k x[r][k] w[o][k] for rows <= R: a warp per output row streams the weight row
// once with 16-byte loads that skip L1 and serves every row of x from it (the decode step's
// matrix-vector shape, bound by reading the weights). Each lane issues kGemvUnroll loads before
// it uses one, so a warp keeps 4 KiB in flight. k is a multiple of 8.
// With glu > 0 (the fused gate/up projection, gate rows first) warp o reads weight rows o and
// glu + o and writes the SwiGLU of the pair, silu(gate) * up, as bf16 into y[r][o] (n = glu):
// the swiglu kernel and the fp32 [rows][2 ffn] round trip are gone from the decode step.
constexpr int kGemvUnroll = 8;
template<int R>
__global__ void __launch_bounds__(256)
    gemv(const __nv_bfloat16* x, const __nv_bfloat16* w, void* y, int rows, int n, int k, int glu)
{
    const int o = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (o >= n)
        return;
    const uint4* wr = reinterpret_cast<const uint4*>(w + static_cast<std::size_t>(o) * k);
    const uint4* wu = glu ? reinterpret_cast<const uint4*>(w + static_cast<std::size_t>(glu + o) * k) : wr;
    float acc[R], acc_u[R];
#pragma unroll
    for (int r = 0; r < R; ++r)
        acc[r] = acc_u[r] = 0.f;
    const int chunks = k / 8;
    const auto dot8 = [](const uint4& wv, const uint4& xv) {
        const auto* wp = reinterpret_cast<const __nv_bfloat162*>(&wv);
        const auto* xp = reinterpret_cast<const __nv_bfloat162*>(&xv);
        float s = 0.f;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float2 wf = __bfloat1622float2(wp[e]), xf = __bfloat1622float2(xp[e]);
            s = fmaf(wf.x, xf.x, fmaf(wf.y, xf.y, s));
        }
        return s;
    };
    for (int c0 = lane; c0 < chunks; c0 += 32 * kGemvUnroll) {
        uint4 wv[kGemvUnroll], uv[kGemvUnroll];
#pragma unroll
        for (int u = 0; u < kGemvUnroll; ++u) {
            const int c = c0 + 32 * u;
            wv[u] = c < chunks ? __ldcs(wr + c) : make_uint4(0, 0, 0, 0);
            if (glu)
                uv[u] = c < chunks ? __ldcs(wu + c) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < kGemvUnroll; ++u) {
            const int c = c0 + 32 * u;
            if (c >= chunks)
                break;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (r >= rows)
                    break;
                const uint4 xv = __ldg(reinterpret_cast<const uint4*>(x + static_cast<std::size_t>(r) * k) + c);
                acc[r] += dot8(wv[u], xv);
                if (glu)
                    acc_u[r] += dot8(uv[u], xv);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        float v = acc[r], u = acc_u[r];
        for (int s = 16; s > 0; s >>= 1) {
            v += __shfl_xor_sync(0xffffffffu, v, s);
            u += __shfl_xor_sync(0xffffffffu, u, s);
        }
        if (lane == 0 && r < rows) {
            if (glu) // swiglu's arithmetic, so the fused and the unfused step agree
                static_cast<__nv_bfloat16*>(y)[static_cast<std::size_t>(r) * n + o]
                    = __float2bfloat16(u * (v / (1.0f + expf(-v))));
            else
                static_cast<float*>(y)[static_cast<std::size_t>(r) * n + o] = v;
        }
    }
}

} // namespace kwb::cuda::tllm
