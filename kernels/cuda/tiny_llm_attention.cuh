// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's own decode attention for the fused step (attention=step): one query token per
// sequence against the paged cache, a block per (split, KV head, sequence) serving the G query
// heads of its KV head, as attention_decode's kernel does, but shaped for a step's latency:
// - it runs under PDL (tiny_llm_launch.h): it waits for the QKV GEMV that wrote Q and the new
//   token's K and V, and lets the wo GEMV start streaming its weights while it runs;
// - the splits merge in the last block of a (KV head, sequence) to finish (a ticket counter that
//   block resets), so there is no combine kernel;
// - a split holds at most kStepSplitTokens tokens, its scores in shared memory: one pass of
//   scores (a thread per token), one softmax, one P V pass (a thread per 8-column chunk and
//   token group), no tile pipeline.
// Reference: the same fp32 reference as attention_decode's kernel (tiny_llm_verify.cu).
#include "attention_decode_kernel.cuh"
#include "tiny_llm_launch.h"

namespace kwb::cuda::tllm {

constexpr int kStepAttnThreads = 128, kStepSplitTokens = 256;

struct StepAttnArgs {
    const void *k_pool, *v_pool; // this layer's [pages][kv_heads][page_size][D]
    const int* page_table; // [batch][max_pages]
    const int* seq_len; // [batch]
    const __nv_bfloat16* q; // [batch][heads][D]
    const float *k_scale, *v_scale; // [kv_heads]
    __nv_bfloat16* out; // [batch][heads][D]
    float *o_part, *m_part, *l_part; // [batch][heads][splits](x D): splits > 1
    unsigned* tickets; // [batch][kv_heads], zero between steps
    int kv_heads, page_size, max_pages, splits;
    float scale_log2;
};

template<int D, int G> constexpr int step_attn_smem()
{
    constexpr int groups = kStepAttnThreads / (D / 8);
    return (G * D + G * kStepSplitTokens + groups * G * D + 2 * G) * 4 + 16;
}

template<int D, int G, typename KV> __global__ void __launch_bounds__(kStepAttnThreads) step_attention(StepAttnArgs a)
{
    constexpr int kChunks = D / 8, kGroups = kStepAttnThreads / kChunks;
    extern __shared__ __align__(16) float sm[];
    float* q_s = sm; // [G][D]
    float* p_s = q_s + G * D; // [G][kStepSplitTokens]: scores, then probabilities
    float* red = p_s + G * kStepSplitTokens; // [kGroups][G][D]
    float* m_s = red + kGroups * G * D; // [G]
    float* l_s = m_s + G;
    __shared__ bool last;

    pdl_trigger();
    pdl_wait();
    const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z, tid = threadIdx.x;
    const int heads = a.kv_heads * G;
    const int len = __ldcg(a.seq_len + b);
    const int per = (len + a.splits - 1) / a.splits, start = split * per, n = max(0, min(len, start + per) - start);
    const float qscale = a.scale_log2 * a.k_scale[kvh];
    for (int i = tid; i < G * D; i += kStepAttnThreads)
        q_s[i] = __bfloat162float(a.q[(static_cast<std::size_t>(b) * heads + kvh * G) * D + i]) * qscale;
    __syncthreads();

    const int* table = a.page_table + static_cast<std::size_t>(b) * a.max_pages;
    const auto row = [&](const void* pool, int pos) {
        const int page = __ldcg(table + pos / a.page_size);
        return static_cast<const KV*>(pool)
            + ((static_cast<std::size_t>(page) * a.kv_heads + kvh) * a.page_size + pos % a.page_size) * D;
    };
    // 1. scores: a thread per token
    for (int t = tid; t < n; t += kStepAttnThreads) {
        const KV* k = row(a.k_pool, start + t);
        float s[G];
#pragma unroll
        for (int g = 0; g < G; ++g)
            s[g] = 0.f;
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
            float kv[8];
            decode::load_floats<KV, 8>(k + c * 8, kv);
#pragma unroll
            for (int g = 0; g < G; ++g)
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    s[g] = fmaf(q_s[g * D + c * 8 + e], kv[e], s[g]);
        }
#pragma unroll
        for (int g = 0; g < G; ++g)
            p_s[g * kStepSplitTokens + t] = s[g];
    }
    __syncthreads();
    // 2. softmax per head (log2 domain): warp w owns heads w, w + 4
    const int lane = tid & 31, warp = tid >> 5;
    for (int g = warp; g < G; g += kStepAttnThreads / 32) {
        float* ps = p_s + g * kStepSplitTokens;
        float mx = -INFINITY;
        for (int t = lane; t < n; t += 32)
            mx = fmaxf(mx, ps[t]);
        for (int o = 16; o > 0; o >>= 1)
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        float sum = 0.f;
        for (int t = lane; t < n; t += 32) {
            const float p = exp2f(ps[t] - mx);
            ps[t] = p;
            sum += p;
        }
        for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        if (lane == 0)
            m_s[g] = mx, l_s[g] = sum;
    }
    __syncthreads();
    // 3. P V: thread (chunk, token group), then the groups summed through shared memory
    const int chunk = tid % kChunks, group = tid / kChunks;
    float acc[G][8];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int e = 0; e < 8; ++e)
            acc[g][e] = 0.f;
#pragma unroll 4
    for (int t = group; t < n; t += kGroups) {
        float v[8];
        decode::load_floats<KV, 8>(row(a.v_pool, start + t) + chunk * 8, v);
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const float p = p_s[g * kStepSplitTokens + t];
#pragma unroll
            for (int e = 0; e < 8; ++e)
                acc[g][e] = fmaf(p, v[e], acc[g][e]);
        }
    }
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int e = 0; e < 8; ++e)
            red[(group * G + g) * D + chunk * 8 + e] = acc[g][e];
    __syncthreads();
    const float vscale = a.v_scale[kvh];
    for (int i = tid; i < G * D; i += kStepAttnThreads) {
        const int g = i / D, d = i % D;
        float o = 0.f;
        for (int grp = 0; grp < kGroups; ++grp)
            o += red[(grp * G + g) * D + d];
        const std::size_t r = static_cast<std::size_t>(b) * heads + kvh * G + g;
        if (a.splits == 1)
            a.out[r * D + d] = __float2bfloat16(o * vscale / l_s[g]);
        else {
            a.o_part[(r * a.splits + split) * D + d] = o * vscale;
            if (d == 0)
                a.m_part[r * a.splits + split] = m_s[g], a.l_part[r * a.splits + split] = l_s[g];
        }
    }
    if (a.splits == 1)
        return;
    // The last split of (sequence, KV head) to finish merges them all (decode_combine's arithmetic).
    __threadfence();
    __syncthreads();
    if (tid == 0) {
        unsigned* ticket = a.tickets + static_cast<std::size_t>(b) * a.kv_heads + kvh;
        last = atomicAdd(ticket, 1u) == static_cast<unsigned>(a.splits - 1);
        if (last)
            *ticket = 0; // every split has taken its ticket: ready for the next step
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    // Each split's weight exp2(m_s - max m) / merged sum per head into shared memory (the score
    // space is free), then every output element sums the splits' partials, their loads unrolled.
    float* w_s = p_s; // [G][splits]
    for (int i = tid; i < G * a.splits; i += kStepAttnThreads) {
        const std::size_t r = static_cast<std::size_t>(b) * heads + kvh * G + i / a.splits;
        w_s[i] = __ldcg(a.m_part + r * a.splits + i % a.splits);
    }
    __syncthreads();
    for (int g = warp; g < G; g += kStepAttnThreads / 32) {
        const std::size_t r = static_cast<std::size_t>(b) * heads + kvh * G + g;
        float* ws = w_s + g * a.splits;
        float mx = -INFINITY;
        for (int s = lane; s < a.splits; s += 32)
            mx = fmaxf(mx, ws[s]);
        for (int o = 16; o > 0; o >>= 1)
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        float sum = 0.f;
        for (int s = lane; s < a.splits; s += 32)
            sum += __ldcg(a.l_part + r * a.splits + s) * exp2f(ws[s] - mx);
        for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        __syncwarp();
        for (int s = lane; s < a.splits; s += 32)
            ws[s] = exp2f(ws[s] - mx) / sum;
    }
    __syncthreads();
    for (int i = tid; i < G * D; i += kStepAttnThreads) {
        const int g = i / D, d = i % D;
        const std::size_t r = static_cast<std::size_t>(b) * heads + kvh * G + g;
        const float* op = a.o_part + r * a.splits * D + d;
        float o = 0.f;
#pragma unroll 8
        for (int s = 0; s < a.splits; ++s)
            o += __ldcg(op + static_cast<std::size_t>(s) * D) * w_s[g * a.splits + s];
        a.out[r * D + d] = __float2bfloat16(o);
    }
}

} // namespace kwb::cuda::tllm
