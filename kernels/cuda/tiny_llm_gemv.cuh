// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The GEMV of tiny_llm's decode step (rows <= 8: matrix-vector shaped, bound by reading the
// weights once), with what sits around each projection folded in, so a layer is four GEMVs and
// the attention instead of eight kernels:
// - Norm: the block computes the RMSNorm of the fp32 residual stream itself (each block reads the
//   few KB of it and the gains, writes the bf16 input into shared memory), so the norm kernels
//   are gone from the step;
// - Glu: the fused gate/up projection writes silu(gate) * up in bf16 (n = ffn, gate rows first);
// - Residual: the wo / down projection adds its output into the residual stream (y += W x);
// - Rope: the QKV projection's warp computes a column pair and rotates and scatters it into Q
//   and the paged K/V cache (rope_store), so the rope kernel is gone too;
// - StoreArgmax: the LM head stores the logits and picks each row's greedy token (argmax_tokens'
//   rule), so the argmax kernel is gone from the step as well.
// With fp8 weights (`weights` fp8) the same loop reads e4m3 codes, 16 a 16-byte load instead of 8
// bf16, so a row takes half the bytes; each row's dot product is taken in fp32 over the codes'
// exact values and times its fp32 scale (cpu/weight_fp8.h) before the epilogue.
// Launched with PDL (pdl_launch.h), a block issues its first weight loads, then waits for
// the previous kernel: the weights stream while that kernel drains. The grid is one wave; each
// warp walks its rows with the next batch of loads in flight while it consumes the current one.
#include "tiny_llm_step_kernels.cuh"

#include <cuda_fp8.h>
#include <type_traits>

namespace kwb::cuda::tllm {

enum class Epilogue { Store, Glu, Residual, Rope, StoreArgmax };

constexpr int kGemvThreads = 256, kGemvWarps = kGemvThreads / 32;
// 16-byte loads per lane in a batch (a pair's rows share them); a warp keeps the next batch in
// flight while it consumes one. Four blocks per SM (64 registers) at rows <= 2: enough warps that
// most of a step's matrices take one row (pair) per warp, so no warp walks a second one alone
// (rows 4 and 8 take two blocks: their accumulators would spill).
constexpr int kGemvUnroll = 4;

struct GemvArgs {
    const __nv_bfloat16* x = nullptr; // [rows][k] bf16 input (without Norm)
    const float* resid = nullptr; // with Norm: the fp32 residual stream [rows][k] ...
    const float* gain = nullptr; // ... and the norm's gains [k]; the input is rmsnorm(resid) * gain
    const __nv_bfloat16* w = nullptr; // [out][k]
    void* y = nullptr; // fp32 [rows][n] (Store, Residual), bf16 [rows][n] (Glu)
    int rows = 0, n = 0, k = 0; // n: outputs per row (Glu: ffn; Rope: the QKV width)
    RopeArgs rope {}; // Rope: where Q and the cache go (rows are sequences, per = 1)
    // StoreArgmax: each block's best per row into partial[block][rows] as (value, index bits),
    // room for ceil(n / kGemvWarps) blocks x rows (the most a launch takes); `arrived` counts the
    // blocks done (0 between launches); the last one merges the candidates into next[rows].
    float2* partial = nullptr;
    unsigned* arrived = nullptr;
    int* next = nullptr;
    // fp8 weights: the same matrix as e4m3 codes [out][k] and one scale per output row (then `w`
    // is not read).
    const __nv_fp8_e4m3* wq = nullptr;
    const float* w_scale = nullptr;
};

// The end of a StoreArgmax launch, every thread of the block: the warps' bests (best_v/best_i
// [kGemvWarps][R], each the first index of its warp's largest value) become the block's
// candidate per row; the block that draws the last ticket merges every block's candidates into
// next[row] and resets the count. The classic last-block reduction: thread 0 fences the block's
// candidate stores (cumulative over the barrier) before its ticket, and the last block fences
// after its own before it reads.
template<int R>
__device__ __forceinline__ void argmax_across_blocks(
    const GemvArgs& a, const float (*best_v)[R], const int (*best_i)[R])
{
    __shared__ bool last;
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < a.rows) {
        const int r = threadIdx.x;
        float bv = best_v[0][r];
        int bi = best_i[0][r];
        for (int w = 1; w < kGemvWarps; ++w)
            argmax_merge(bv, bi, best_v[w][r], best_i[w][r]);
        a.partial[blockIdx.x * a.rows + r] = make_float2(bv, __int_as_float(bi));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(a.arrived, 1u) == gridDim.x - 1;
        __threadfence();
    }
    __syncthreads();
    const int lane = threadIdx.x & 31, r = threadIdx.x >> 5; // a warp per row (rows <= kGemvWarps)
    if (!last || r >= a.rows)
        return;
    float bv = -INFINITY;
    int bi = 0x7fffffff;
    for (unsigned b = lane; b < gridDim.x; b += 32) {
        const float2 c = __ldcg(a.partial + b * a.rows + r);
        argmax_merge(bv, bi, c.x, __float_as_int(c.y));
    }
    for (int o = 16; o > 0; o >>= 1)
        argmax_merge(bv, bi, __shfl_xor_sync(0xffffffffu, bv, o), __shfl_xor_sync(0xffffffffu, bi, o));
    if (lane == 0)
        a.next[r] = bi;
    if (threadIdx.x == 0)
        *a.arrived = 0; // every block has drawn its ticket: ready for the next launch (or graph replay)
}

__device__ __forceinline__ float dot8(const uint4& wv, const uint4& xv)
{
    const auto* wp = reinterpret_cast<const __nv_bfloat162*>(&wv);
    const auto* xp = reinterpret_cast<const __nv_bfloat162*>(&xv);
    float s = 0.f;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const float2 wf = __bfloat1622float2(wp[e]), xf = __bfloat1622float2(xp[e]);
        s = fmaf(wf.x, xf.x, fmaf(wf.y, xf.y, s));
    }
    return s;
}

// 16 e4m3 weights (one 16-byte load) against the 16 bf16 inputs of two 16-byte loads, in fp32:
// e4m3 to half is exact (4 significant bits, exponents -9..8), half to float too. Byte 2e of the
// load is weight 2e, the pair's low half (.x), as input 2e is the bf16 pair's .x.
__device__ __forceinline__ float dot16(const uint4& wv, const uint4& x0, const uint4& x1)
{
    const auto* wp = reinterpret_cast<const __nv_fp8x2_storage_t*>(&wv);
    const auto* xa = reinterpret_cast<const __nv_bfloat162*>(&x0);
    const auto* xb = reinterpret_cast<const __nv_bfloat162*>(&x1);
    float s = 0.f;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        const float2 wf = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(wp[e], __NV_E4M3)));
        const float2 xf = __bfloat1622float2(e < 4 ? xa[e] : xb[e - 4]);
        s = fmaf(wf.x, xf.x, fmaf(wf.y, xf.y, s));
    }
    return s;
}

// The block's bf16 input rows in shared memory: rmsnorm(resid[r]) * gain, the arithmetic of
// residual_rmsnorm (tiny_llm_kernels.cuh). The residual stream is read through L2 (__ldcg): it
// was written by the previous kernel, which under PDL this block may have overlapped. A row of up
// to kNormHeld float4 per thread is loaded at once and kept in registers: a loop of loads, each
// waited on before the next is issued, cost a chain of L2 round trips twice (sum, then scale)
// at the head of every normed GEMV (-0.9% ITL at 3.4 GB on the H200). Same per-thread order of the sum.
constexpr int kNormHeld = 4; // float4 per thread: rows of up to 4 x 4 x kGemvThreads = 4096 (more would spill)
__device__ __forceinline__ void norm_into_shared(const GemvArgs& a, __nv_bfloat16* xs)
{
    __shared__ float red[32];
    const int quads = a.k / 4;
    const float4* g = reinterpret_cast<const float4*>(a.gain);
    const auto store = [&](int r, int i, const float4& v, float inv) {
        const float4 gv = g[i];
        auto* out = reinterpret_cast<__nv_bfloat162*>(xs + static_cast<std::size_t>(r) * a.k + 4 * i);
        out[0] = __floats2bfloat162_rn(v.x * inv * gv.x, v.y * inv * gv.y);
        out[1] = __floats2bfloat162_rn(v.z * inv * gv.z, v.w * inv * gv.w);
    };
    for (int r = 0; r < a.rows; ++r) {
        const float4* xr = reinterpret_cast<const float4*>(a.resid + static_cast<std::size_t>(r) * a.k);
        float ss = 0.f;
        if (quads <= kNormHeld * static_cast<int>(blockDim.x)) {
            float4 held[kNormHeld];
#pragma unroll
            for (int j = 0; j < kNormHeld; ++j) {
                const int i = threadIdx.x + j * blockDim.x;
                held[j] = i < quads ? __ldcg(xr + i) : make_float4(0.f, 0.f, 0.f, 0.f);
            }
#pragma unroll
            for (int j = 0; j < kNormHeld; ++j)
                ss += held[j].x * held[j].x + held[j].y * held[j].y + held[j].z * held[j].z + held[j].w * held[j].w;
            const float inv = rsqrtf(block_sum(ss, red) / static_cast<float>(a.k) + kRmsNormEps);
#pragma unroll
            for (int j = 0; j < kNormHeld; ++j) {
                const int i = threadIdx.x + j * blockDim.x;
                if (i < quads)
                    store(r, i, held[j], inv);
            }
            continue;
        }
        for (int i = threadIdx.x; i < quads; i += blockDim.x) {
            const float4 v = __ldcg(xr + i);
            ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
        }
        const float inv = rsqrtf(block_sum(ss, red) / static_cast<float>(a.k) + kRmsNormEps);
        for (int i = threadIdx.x; i < quads; i += blockDim.x)
            store(r, i, __ldcg(xr + i), inv);
    }
    __syncthreads();
}

// y = epilogue(W x) for rows <= R. k is a multiple of 8 (Wt fp8: of 16); with Norm, a multiple
// of 4 and the dynamic shared memory holds rows x k bf16. KV: the cache's element type (Rope).
// Wt: the weights' element, bf16 (a.w) or e4m3 (a.wq, a.w_scale).
template<int R, Epilogue E, bool Norm, typename KV = __nv_bfloat16, typename Wt = __nv_bfloat16>
__global__ void __launch_bounds__(kGemvThreads, R <= 2 ? 4 : 2) gemv(const GemvArgs a)
{
    constexpr bool kPair = E == Epilogue::Glu || E == Epilogue::Rope;
    constexpr bool kArgmax = E == Epilogue::StoreArgmax;
    constexpr bool kFp8 = std::is_same_v<Wt, __nv_fp8_e4m3>;
    constexpr int kPerLoad = kFp8 ? 16 : 8; // weights a 16-byte load carries
    constexpr int U = kPair ? kGemvUnroll / 2 : kGemvUnroll;
    extern __shared__ uint4 xs[];
    // StoreArgmax: each warp's running best per row, kept by its lane 0 in shared memory (not in
    // registers, which the accumulators need).
    __shared__ float best_v[kArgmax ? kGemvWarps : 1][R];
    __shared__ int best_i[kArgmax ? kGemvWarps : 1][R];
    pdl_trigger();
    const int lane = threadIdx.x & 31, warps = gridDim.x * kGemvWarps;
    const int units = E == Epilogue::Rope ? a.n / 2 : a.n; // warp-sized pieces of work: rows or row pairs
    // chunks: 16-byte loads of a weight row; x_chunks: of an input row (2 a weight load with fp8).
    const int chunks = a.k / kPerLoad, x_chunks = a.k / 8, batches = (chunks + 32 * U - 1) / (32 * U);
    const uint4* W = reinterpret_cast<const uint4*>(kFp8 ? static_cast<const void*>(a.wq) : a.w);
    // The weight rows of unit u: the row (pair) whose outputs it makes.
    const auto row_a = [&](int u) { return E == Epilogue::Rope ? 2 * u : u; };
    const auto row_b = [&](int u) { return E == Epilogue::Rope ? 2 * u + 1 : a.n + u; };
    const auto load = [&](uint4* wa, uint4* wb, int u, int b) {
        const int ra = row_a(u), rb = row_b(u);
        const uint4* pa = W + static_cast<std::size_t>(ra) * chunks;
        const uint4* pb = W + static_cast<std::size_t>(rb) * chunks;
#pragma unroll
        for (int i = 0; i < U; ++i) {
            const int c = b * 32 * U + 32 * i + lane;
            wa[i] = c < chunks ? __ldcs(pa + c) : make_uint4(0, 0, 0, 0);
            if (kPair)
                wb[i] = c < chunks ? __ldcs(pb + c) : make_uint4(0, 0, 0, 0);
        }
    };

    int u = blockIdx.x * kGemvWarps + (threadIdx.x >> 5), b = 0;
    if (kArgmax && lane == 0)
#pragma unroll
        for (int r = 0; r < R; ++r)
            best_v[threadIdx.x >> 5][r] = -INFINITY, best_i[threadIdx.x >> 5][r] = 0x7fffffff;
    // fp8: the scales of a unit's rows, loaded with its first batch (written at prepare only, so
    // like the weights independent of the previous kernel), ready when its sums are.
    const auto load_scales = [&](int u, float& sa, float& sb) {
        if constexpr (kFp8) {
            sa = __ldg(a.w_scale + row_a(u));
            if (kPair)
                sb = __ldg(a.w_scale + row_b(u));
        }
    };
    float scale_a = 1.f, scale_b = 1.f;
    uint4 wa[U], wb[U];
    if (u < units) {
        load(wa, wb, u, 0); // independent of the previous kernel: in flight before the wait
        load_scales(u, scale_a, scale_b);
    }
    pdl_wait();
    const uint4* xv = reinterpret_cast<const uint4*>(a.x);
    if constexpr (Norm) {
        norm_into_shared(a, reinterpret_cast<__nv_bfloat16*>(xs));
        xv = xs;
    }
    float acc[R], acc_b[R];
#pragma unroll
    for (int r = 0; r < R; ++r)
        acc[r] = acc_b[r] = 0.f;
    while (u < units) {
        int nu = u, nb = b + 1;
        if (nb == batches)
            nu += warps, nb = 0;
        uint4 na[U], nbv[U];
        float next_a = scale_a, next_b = scale_b;
        if (nu < units) {
            load(na, nbv, nu, nb);
            if (nb == 0)
                load_scales(nu, next_a, next_b);
        }
#pragma unroll
        for (int i = 0; i < U; ++i) {
            const int c = b * 32 * U + 32 * i + lane;
            if (c >= chunks)
                break;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (r >= a.rows)
                    break;
                // after pdl_wait the previous kernel's writes are visible; L1 serves the block's warps
                const std::size_t xc = static_cast<std::size_t>(r) * x_chunks + c * (kPerLoad / 8);
                if constexpr (kFp8) {
                    const uint4 x0 = Norm ? xv[xc] : __ldg(xv + xc), x1 = Norm ? xv[xc + 1] : __ldg(xv + xc + 1);
                    acc[r] += dot16(wa[i], x0, x1);
                    if (kPair)
                        acc_b[r] += dot16(wb[i], x0, x1);
                } else {
                    const uint4 x = Norm ? xv[xc] : __ldg(xv + xc);
                    acc[r] += dot8(wa[i], x);
                    if (kPair)
                        acc_b[r] += dot8(wb[i], x);
                }
            }
        }
        if (nb == 0) { // row (pair) u done: reduce over the warp, lane 0 writes
#pragma unroll
            for (int r = 0; r < R; ++r) {
                float v = acc[r], v2 = acc_b[r];
                for (int s = 16; s > 0; s >>= 1) {
                    v += __shfl_xor_sync(0xffffffffu, v, s);
                    if (kPair)
                        v2 += __shfl_xor_sync(0xffffffffu, v2, s);
                }
                acc[r] = acc_b[r] = 0.f;
                if (lane != 0 || r >= a.rows)
                    continue;
                if constexpr (kFp8)
                    v *= scale_a, v2 *= scale_b;
                const std::size_t at = static_cast<std::size_t>(r) * a.n + u;
                if constexpr (E == Epilogue::Store)
                    static_cast<float*>(a.y)[at] = v;
                else if constexpr (kArgmax) { // a warp's rows ascend: the first of equal values stays
                    static_cast<float*>(a.y)[at] = v;
                    argmax_merge(best_v[threadIdx.x >> 5][r], best_i[threadIdx.x >> 5][r], v, u);
                } else if constexpr (E == Epilogue::Residual) {
                    float* y = static_cast<float*>(a.y) + at;
                    *y = __ldcg(y) + v;
                } else if constexpr (E == Epilogue::Glu) // swiglu's arithmetic, so fused and unfused agree
                    static_cast<__nv_bfloat16*>(a.y)[at] = __float2bfloat16(v2 * (v / (1.0f + expf(-v))));
                else
                    rope_store<KV>(a.rope, r, 2 * u, v, v2);
            }
        }
#pragma unroll
        for (int i = 0; i < U; ++i)
            wa[i] = na[i], wb[i] = nbv[i];
        scale_a = next_a, scale_b = next_b; // the next unit's when nb is 0, else this one's still
        u = nu, b = nb;
    }
    if constexpr (kArgmax)
        argmax_across_blocks<R>(a, best_v, best_i);
}

} // namespace kwb::cuda::tllm
