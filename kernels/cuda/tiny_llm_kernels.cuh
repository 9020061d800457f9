// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The small kernels tiny_llm's bf16 path and its fp32 reference share: seeding, embedding
// lookup, residual + RMSNorm, SwiGLU. Activations between kernels: the residual stream in fp32,
// GEMM inputs in bf16 (fp32 in the reference), GEMM outputs in fp32.
#include "pdl_launch.h"

#include <cstdint>
#include <cuda_bf16.h>

namespace kwb::cuda::tllm {

constexpr float kRmsNormEps = 1e-6f; // kernels/cpu/rmsnorm.h: the CPU backend's epsilon
constexpr int kNormThreads = 1024;

// The CPU backend's fill_uniform (kernels/cpu/workload_util.cpp) element by element: SplitMix64
// at state seed + (i + 1) * golden, the top 24 bits scaled; _rn so no FMA changes the rounding.
__device__ __forceinline__ float seeded_value(std::uint64_t seed, std::size_t i, float lo, float scale)
{
    std::uint64_t z = seed + static_cast<std::uint64_t>(i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return __fadd_rn(lo, __fmul_rn(static_cast<float>(z >> 40), scale));
}

template<typename T> __device__ __forceinline__ T from_float(float v);
template<> __device__ __forceinline__ float from_float(float v)
{
    return v;
}
template<> __device__ __forceinline__ __nv_bfloat16 from_float(float v)
{
    return __float2bfloat16(v);
}

template<typename T> __global__ void seed_tensor(T* out, std::size_t n, std::uint64_t seed, float lo, float scale)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = from_float<T>(seeded_value(seed, i, lo, scale));
}

// x[r] = embedding[tokens[r]] (fp32 residual stream). May run under PDL (a decode step's): waits
// for the previous kernel, reads the token through L2. bf16 rows of a multiple of 8 are read 16
// bytes a thread, all of a thread's loads in flight at once (the scalar loop waited on each).
// With `grow` (a decode step's sequence lengths, a row per sequence), also grow[r] += 1: the
// step's token is appended, so no kernel of its own sets the lengths before the step; then the
// next kernel (the QKV GEMV) may launch, its weight loads going out while the row is copied: the
// length is written and fenced first, because the attention after that GEMV reads it before its
// own wait (decode::Params::early).
template<typename T> __global__ void embed(const int* tokens, const T* emb, float* x, int hidden, int* grow = nullptr)
{
    pdl_wait();
    const std::size_t row = blockIdx.x;
    if (grow) {
        if (threadIdx.x == 0) { // through L2: under PDL a stale L1 line of the last step's length would be wrong
            grow[row] = __ldcg(grow + row) + 1;
            __threadfence();
        }
        __syncthreads();
        pdl_trigger();
    }
    const T* e = emb + static_cast<std::size_t>(__ldcg(tokens + row)) * hidden;
    float* out = x + row * hidden;
    if constexpr (sizeof(T) == 2) {
        if (hidden % 8 == 0) {
            constexpr int kHeld = 4; // 16-byte chunks a thread holds: rows up to 4 x 8 x blockDim
            const int chunks = hidden / 8;
            for (int c0 = threadIdx.x; c0 < chunks; c0 += kHeld * blockDim.x) {
                uint4 v[kHeld];
#pragma unroll
                for (int j = 0; j < kHeld; ++j) {
                    const int c = c0 + j * blockDim.x;
                    v[j] = c < chunks ? reinterpret_cast<const uint4*>(e)[c] : make_uint4(0, 0, 0, 0);
                }
#pragma unroll
                for (int j = 0; j < kHeld; ++j) {
                    const int c = c0 + j * blockDim.x;
                    if (c >= chunks)
                        break;
                    const auto* h = reinterpret_cast<const T*>(&v[j]);
                    float4* o = reinterpret_cast<float4*>(out + 8 * c);
                    o[0] = make_float4(static_cast<float>(h[0]), static_cast<float>(h[1]), static_cast<float>(h[2]),
                        static_cast<float>(h[3]));
                    o[1] = make_float4(static_cast<float>(h[4]), static_cast<float>(h[5]), static_cast<float>(h[6]),
                        static_cast<float>(h[7]));
                }
            }
            return;
        }
    }
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        out[i] = static_cast<float>(e[i]);
}

__device__ __forceinline__ float block_sum(float v, float* red)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    float total = 0.f;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w)
        total += red[w];
    __syncthreads();
    return total;
}

// Output row r reads residual row r * per + per - 1 (per = tokens per sequence: the final norm
// of a prefill takes each sequence's last position; 1 elsewhere), adds `delta` to it when
// given, and writes rmsnorm(x) * gain as T. Up to 1024 threads (a decode step's one row takes
// kNormThreads: with 256 its loop was a chain of dependent loads).
template<typename T>
__global__ void __launch_bounds__(1024)
    residual_rmsnorm(float* x, const float* delta, const float* gain, T* out, int hidden, int per)
{
    __shared__ float red[32];
    const std::size_t src = static_cast<std::size_t>(blockIdx.x) * per + per - 1;
    float* xr = x + src * hidden;
    float ss = 0.f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        float v = xr[i];
        if (delta) {
            v += delta[src * hidden + i];
            xr[i] = v;
        }
        ss += v * v;
    }
    const float inv = rsqrtf(block_sum(ss, red) / static_cast<float>(hidden) + kRmsNormEps);
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        out[static_cast<std::size_t>(blockIdx.x) * hidden + i] = from_float<T>(xr[i] * inv * gain[i]);
}

// out[r][i] = silu(gate) * up from the fused [rows][2 ffn] projection (gate columns first).
template<typename T> __global__ void swiglu(const float* gu, T* out, int ffn)
{
    const std::size_t row = blockIdx.x;
    for (int i = threadIdx.x; i < ffn; i += blockDim.x) {
        const float g = gu[row * 2 * ffn + i], u = gu[row * 2 * ffn + ffn + i];
        out[row * ffn + i] = from_float<T>(u * (g / (1.0f + expf(-g))));
    }
}

} // namespace kwb::cuda::tllm
