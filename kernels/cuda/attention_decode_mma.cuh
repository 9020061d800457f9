// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `impl=mma` of the paged decode (bf16 KV only): the same block ownership, page gather and
// cp.async ring as decode_kernel, but Q K^T and P V on m16n8k16 tensor cores with the G query
// heads as the rows of one m16 tile (rows G..15 zero). Each warp owns 16 tokens of every 64-token
// tile with its own running max and sum, so a tile needs one barrier (the ring's) instead of
// three; the four warps' states are merged once at the end. P enters P V as two bf16 terms (hi +
// the rounding remainder), which keeps the weights at about 16 bits, as the fp32 CUDA-core kernel.
#include "attention_decode_kernel.cuh"
#include "attention_prefill_kernel.cuh"

namespace kwb::cuda::decode {

// K and V rows are unpadded and swizzled (PageGather); q's 16 rows are padded.
template<int D> struct MmaLayout {
    static constexpr int kStride = D; // bf16 elements per K or V row in shared memory
    static constexpr int kQStride = D + 8;
    static constexpr int kStageElems = 2 * kTile * kStride;
};

template<int D, int G> __host__ __device__ constexpr int mma_combine_bytes()
{
    return 4 * G * D * 4 + 2 * 4 * G * 4;
}
template<int D, int G> int mma_smem_bytes(int stages)
{
    const int ring = stages * MmaLayout<D>::kStageElems * 2;
    const int comb = mma_combine_bytes<D, G>();
    return (ring > comb ? ring : comb) + 16 * MmaLayout<D>::kQStride * 2;
}

template<int D, int G> __global__ void __launch_bounds__(kThreads) decode_mma_kernel(const Params p)
{
    using prefill::ldsm_x4;
    using prefill::ldsm_x4_t;
    using prefill::mma16816;
    using prefill::pack_bf16;
    constexpr int S = MmaLayout<D>::kStride, QS = MmaLayout<D>::kQStride;
    constexpr int kChunks = D / 8;
    constexpr int DT = D / 8;
    extern __shared__ __align__(16) unsigned char smem[];
    auto* ring = reinterpret_cast<__nv_bfloat16*>(smem);

    if (!p.early)
        pdl_wait();
    pdl_trigger();
    const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z;
    const int heads = p.kv_heads * G;
    const int len = EarlyStart<kChunks>::length(p, b);
    const int ring_bytes = max(p.stages * MmaLayout<D>::kStageElems * 2, mma_combine_bytes<D, G>());
    auto* q_s = reinterpret_cast<__nv_bfloat16*>(smem + ring_bytes); // [16][QS]

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const auto* kp = static_cast<const unsigned char*>(p.k_pool);
    const auto* vp = static_cast<const unsigned char*>(p.v_pool);
    using Gather = PageGather<kChunks>;
    Gather gather(p, p.page_table + static_cast<std::size_t>(b) * p.max_pages, kvh, D * 2, split_span(p, split));
    const int tiles = gather.clip(len);
    const int start = gather.start, end = gather.end;
    auto load_tile = [&](int tile, int stage) {
        auto* ks = reinterpret_cast<unsigned char*>(ring + stage * MmaLayout<D>::kStageElems);
        gather.issue(tile, ks, S * 2, ks + kTile * S * 2, S * 2, kp, vp);
    };
    // Primed before q is read: q's load overlaps the first tiles' flight (decode_kernel says why).
    gather.prime(tiles, p.stages, load_tile);
    EarlyStart<kChunks> early;
    early.wait(p, b, len, gather, kp, vp);
    for (int i = tid; i < 16 * D; i += kThreads) {
        const int r = i / D, d = i % D;
        q_s[r * QS + d]
            = r < G ? p.q[(static_cast<std::size_t>(b) * heads + kvh * G + r) * D + d] : __float2bfloat16(0.f);
    }

    const float scale = p.scale_log2 * p.k_scale[kvh];
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    float o[DT][4];
#pragma unroll
    for (int dt = 0; dt < DT; ++dt)
#pragma unroll
        for (int e = 0; e < 4; ++e)
            o[dt][e] = 0.f;
    const int tok0 = warp * 16;
    // An ldmatrix lane's row is tok0 + lane % 8 (+ 8): its swizzle is lane % 8 (PageGather::dst_chunk).
    const auto swizzled = [lane](int chunk) { return Gather::dst_chunk(chunk, lane); };

    for (int tile = 0; tile < tiles; ++tile) {
        gather.advance(tile, tiles, p.stages, load_tile);
        auto* stage = reinterpret_cast<unsigned char*>(ring + (tile % p.stages) * MmaLayout<D>::kStageElems);
        early.template put<Gather>(tile, start, stage, S * 2, stage + kTile * S * 2, S * 2);

        const __nv_bfloat16* ks = ring + (tile % p.stages) * MmaLayout<D>::kStageElems;
        const __nv_bfloat16* vs = ks + kTile * S;
        float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            unsigned a[4], bk[4];
            ldsm_x4(a, q_s + (lane % 16) * QS + kk * 16 + (lane / 16) * 8);
            ldsm_x4(bk, ks + (tok0 + (lane % 8) + (lane / 16) * 8) * S + swizzled(kk * 2 + (lane / 8) % 2) * 8);
            mma16816(s[0], a, bk[0], bk[1]);
            mma16816(s[1], a, bk[2], bk[3]);
        }
        const int valid = end - (start + tile * kTile);
        float mx[2] = {m[0], m[1]};
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int key = tok0 + nt * 8 + (lane % 4) * 2 + (e & 1);
                const float v = key < valid ? s[nt][e] * scale : -INFINITY;
                s[nt][e] = v;
                mx[e >> 1] = fmaxf(mx[e >> 1], v);
            }
        float alpha[2], sum[2] = {0.f, 0.f};
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
            // No valid token yet for this warp: keep m = -inf and weigh everything 0, not NaN.
            const float ref = mx[r] == -INFINITY ? 0.f : mx[r];
            alpha[r] = exp2f(m[r] - ref);
            m[r] = mx[r];
            mx[r] = ref;
        }
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                s[nt][e] = exp2f(s[nt][e] - mx[e >> 1]);
                sum[e >> 1] += s[nt][e];
            }
#pragma unroll
        for (int r = 0; r < 2; ++r)
            l[r] = l[r] * alpha[r] + sum[r]; // quad-partial; reduced at the end
        if (__any_sync(0xffffffffu, alpha[0] != 1.f || alpha[1] != 1.f)) // once the maxima settle: never
#pragma unroll
            for (int dt = 0; dt < DT; ++dt) {
                o[dt][0] *= alpha[0];
                o[dt][1] *= alpha[0];
                o[dt][2] *= alpha[1];
                o[dt][3] *= alpha[1];
            }
        float rest[2][4];
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                rest[nt][e] = s[nt][e] - __bfloat162float(__float2bfloat16(s[nt][e]));
        const unsigned hi[4] = {pack_bf16(s[0][0], s[0][1]), pack_bf16(s[0][2], s[0][3]), pack_bf16(s[1][0], s[1][1]),
            pack_bf16(s[1][2], s[1][3])};
        const unsigned lo[4] = {pack_bf16(rest[0][0], rest[0][1]), pack_bf16(rest[0][2], rest[0][3]),
            pack_bf16(rest[1][0], rest[1][1]), pack_bf16(rest[1][2], rest[1][3])};
#pragma unroll
        for (int dp = 0; dp < D / 16; ++dp) {
            unsigned bv[4];
            ldsm_x4_t(bv, vs + (tok0 + (lane % 8) + ((lane / 8) % 2) * 8) * S + swizzled(dp * 2 + lane / 16) * 8);
            mma16816(o[2 * dp], hi, bv[0], bv[1]);
            mma16816(o[2 * dp + 1], hi, bv[2], bv[3]);
            mma16816(o[2 * dp], lo, bv[0], bv[1]);
            mma16816(o[2 * dp + 1], lo, bv[2], bv[3]);
        }
    }

    early.confirm(p, len);
    // Merge the four warps' (m, l, o) through shared memory (the ring is free now).
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    float* co = reinterpret_cast<float*>(smem); // [4][G][D]
    float* cm = co + 4 * G * D; // [4][G]
    float* cl = cm + 4 * G;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        float lr = l[r];
        lr += __shfl_xor_sync(0xffffffffu, lr, 1);
        lr += __shfl_xor_sync(0xffffffffu, lr, 2);
        const int row = lane / 4 + 8 * r;
        if (row < G) {
            if (lane % 4 == 0) {
                cm[warp * G + row] = m[r];
                cl[warp * G + row] = lr;
            }
#pragma unroll
            for (int dt = 0; dt < DT; ++dt) {
                co[(warp * G + row) * D + dt * 8 + (lane % 4) * 2] = o[dt][2 * r];
                co[(warp * G + row) * D + dt * 8 + (lane % 4) * 2 + 1] = o[dt][2 * r + 1];
            }
        }
    }
    __syncthreads();
    const float vscale = p.v_scale[kvh];
    for (int i = tid; i < G * D; i += kThreads) {
        const int g = i / D, d = i % D;
        float M = -INFINITY;
#pragma unroll
        for (int w = 0; w < 4; ++w)
            M = fmaxf(M, cm[w * G + g]);
        float L = 0.f, O = 0.f;
        if (M != -INFINITY)
#pragma unroll
            for (int w = 0; w < 4; ++w) {
                const float wt = exp2f(cm[w * G + g] - M);
                L += cl[w * G + g] * wt;
                O += co[(w * G + g) * D + d] * wt;
            }
        const std::size_t row = static_cast<std::size_t>(b) * heads + kvh * G + g;
        if (p.splits == 1)
            p.out[row * D + d] = __float2bfloat16(O * vscale / L);
        else {
            p.o_part[(row * p.splits + split) * D + d] = O * vscale;
            if (d == 0) {
                p.m_part[row * p.splits + split] = M;
                p.l_part[row * p.splits + split] = L;
            }
        }
    }
}

} // namespace kwb::cuda::decode
