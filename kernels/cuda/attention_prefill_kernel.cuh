// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Flash-style causal prefill (FlashAttention-2 forward) on mma.sync m16n8k16 bf16 tensor cores.
// A block owns BM query rows of one (sequence, head) of a packed varlen batch; each of its WARPS
// warps owns MT = BM / (16 * WARPS) 16-row slices. Q sits in shared memory for the whole block;
// K and V tiles of BN keys stream through a cp.async ring `stages` deep, up to the diagonal.
// Per tile: S = Q K^T (ldmatrix of Q and of K rows), the causal / tail mask on tiles that cross
// the diagonal or the sequence end, the online softmax on the accumulator fragments (a thread
// holds two rows; row max and sum over its quad), then O += P V with P converted in registers to
// the A fragment (the m16n8 C layout of two key tiles is the m16k16 A layout) and V through
// ldmatrix.trans. Shared rows are padded by 16 bytes, so ldmatrix is free of bank conflicts.
// Heavy blocks (late query rows: more keys under the diagonal) are scheduled first.
#include <cstdint>
#include <cuda_bf16.h>

namespace kwb::cuda::prefill {

struct Params {
    const __nv_bfloat16* q; // [tokens][heads][D]
    const __nv_bfloat16* k; // [tokens][kv_heads][D]
    const __nv_bfloat16* v;
    __nv_bfloat16* o; // [tokens][heads][D]
    const int* cu_seqlens; // [batch + 1]
    int heads, kv_heads, stages;
    float scale_log2; // 1/sqrt(D) * log2 e
};

__device__ __forceinline__ unsigned smem_addr32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp16(void* dst, const void* src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr32(dst)), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
__device__ __forceinline__ void cp_wait(int pending)
{
    if (pending <= 0)
        asm volatile("cp.async.wait_group 0;\n" ::);
    else if (pending == 1)
        asm volatile("cp.async.wait_group 1;\n" ::);
    else
        asm volatile("cp.async.wait_group 2;\n" ::);
}
__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr32(p)));
}
__device__ __forceinline__ void ldsm_x4_t(unsigned (&r)[4], const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr32(p)));
}
__device__ __forceinline__ void mma16816(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi)
{
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&v);
}

template<int D> struct Rows {
    static constexpr int kStride = D + 8; // bf16 elements per padded shared row
};

template<int D, int BM, int BN> __host__ __device__ constexpr int smem_bytes_for(int stages)
{
    return (BM + 2 * BN * stages) * Rows<D>::kStride * 2;
}

template<int D, int BM, int BN, int WARPS> __global__ void __launch_bounds__(WARPS * 32) prefill_kernel(const Params p)
{
    constexpr int kThreads = WARPS * 32;
    constexpr int MT = BM / (16 * WARPS); // 16-row slices per warp
    constexpr int S = Rows<D>::kStride;
    constexpr int NT = BN / 8; // key tiles of the score fragment
    constexpr int DT = D / 8; // column tiles of the output fragment
    static_assert(MT >= 1 && BM == MT * 16 * WARPS, "BM must be a multiple of 16 * WARPS");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    auto* q_s = reinterpret_cast<__nv_bfloat16*>(smem_raw);
    auto* kv_s = q_s + BM * S; // stages x {K [BN][S], V [BN][S]}

    const int b = blockIdx.z, h = blockIdx.y;
    const int seq0 = p.cu_seqlens[b];
    const int len = p.cu_seqlens[b + 1] - seq0;
    const int m_block = gridDim.x - 1 - blockIdx.x;
    const int m0 = m_block * BM;
    if (m0 >= len)
        return;
    const int kvh = h / (p.heads / p.kv_heads);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const std::size_t q_row = static_cast<std::size_t>(p.heads) * D;
    const std::size_t kv_row = static_cast<std::size_t>(p.kv_heads) * D;
    const __nv_bfloat16* qg = p.q + static_cast<std::size_t>(seq0) * q_row + static_cast<std::size_t>(h) * D;
    const __nv_bfloat16* kg = p.k + static_cast<std::size_t>(seq0) * kv_row + static_cast<std::size_t>(kvh) * D;
    const __nv_bfloat16* vg = p.v + static_cast<std::size_t>(seq0) * kv_row + static_cast<std::size_t>(kvh) * D;

    constexpr int kChunks = D / 8; // 16-byte chunks per row
    for (int i = tid; i < BM * kChunks; i += kThreads) {
        const int r = i / kChunks, c = i % kChunks;
        const bool ok = m0 + r < len;
        cp16(q_s + r * S + c * 8, qg + (ok ? static_cast<std::size_t>(m0 + r) * q_row + c * 8 : 0), ok ? 16 : 0);
    }
    const int kv_end = min(len, m0 + BM); // keys this block needs (causal)
    const int tiles = (kv_end + BN - 1) / BN;
    auto load_tile = [&](int tile, int stage) {
        __nv_bfloat16* ks = kv_s + stage * 2 * BN * S;
        __nv_bfloat16* vs = ks + BN * S;
        const int n0 = tile * BN;
#pragma unroll
        for (int j = 0; j < (BN * kChunks + kThreads - 1) / kThreads; ++j) {
            const int i = tid + j * kThreads;
            if (BN * kChunks % kThreads == 0 || i < BN * kChunks) {
                const int r = i / kChunks, c = i % kChunks;
                const bool ok = n0 + r < kv_end;
                const std::size_t off = ok ? static_cast<std::size_t>(n0 + r) * kv_row + c * 8 : 0;
                cp16(ks + r * S + c * 8, kg + off, ok ? 16 : 0);
                cp16(vs + r * S + c * 8, vg + off, ok ? 16 : 0);
            }
        }
    };
    // Q travels with the first tile's group.
    for (int s = 0; s < p.stages - 1; ++s) {
        if (s < tiles)
            load_tile(s, s);
        cp_commit();
    }

    float o[MT][DT][4];
    float row_max[MT][2], row_sum[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int dt = 0; dt < DT; ++dt)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                o[mt][dt][e] = 0.f;
        row_max[mt][0] = row_max[mt][1] = -INFINITY;
        row_sum[mt][0] = row_sum[mt][1] = 0.f;
    }

    for (int tile = 0; tile < tiles; ++tile) {
        cp_wait(p.stages - 2);
        __syncthreads();
        {
            const int next = tile + p.stages - 1;
            if (next < tiles)
                load_tile(next, next % p.stages);
            cp_commit();
        }
        const __nv_bfloat16* ks = kv_s + (tile % p.stages) * 2 * BN * S;
        const __nv_bfloat16* vs = ks + BN * S;
        const int n0 = tile * BN;
        const bool needs_mask = n0 + BN > m0 || n0 + BN > len; // crosses the diagonal or the end

#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            const int wrow = (warp * MT + mt) * 16; // first row of this slice within the block
            float s[NT][4];
#pragma unroll
            for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    s[nt][e] = 0.f;
                    // S = Q K^T over D in k16 steps
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) {
                unsigned a[4];
                ldsm_x4(a, q_s + (wrow + (lane % 16)) * S + kk * 16 + (lane / 16) * 8);
#pragma unroll
                for (int np = 0; np < NT / 2; ++np) {
                    unsigned bk[4];
                    ldsm_x4(bk, ks + (np * 16 + (lane % 8) + (lane / 16) * 8) * S + kk * 16 + ((lane / 8) % 2) * 8);
                    mma16816(s[2 * np], a, bk[0], bk[1]);
                    mma16816(s[2 * np + 1], a, bk[2], bk[3]);
                }
            }
            // mask, online softmax (log2 domain), P to bf16 A fragments
            const int r0 = m0 + wrow + lane / 4; // query positions of this thread's two rows
            float mx[2] = {row_max[mt][0], row_max[mt][1]};
#pragma unroll
            for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    float v = s[nt][e] * p.scale_log2;
                    if (needs_mask) {
                        const int key = n0 + nt * 8 + (lane % 4) * 2 + (e & 1);
                        const int row = r0 + (e >> 1) * 8;
                        if (key > row || key >= len)
                            v = -INFINITY;
                    }
                    s[nt][e] = v;
                    mx[e >> 1] = fmaxf(mx[e >> 1], v);
                }
            float alpha[2], sum[2] = {0.f, 0.f};
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
                mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
                // A row with every key masked so far (a padded row past the end) keeps m = -inf:
                // use 0 as its reference so exp2 gives 0, not NaN.
                const float ref = mx[r] == -INFINITY ? 0.f : mx[r];
                alpha[r] = exp2f(row_max[mt][r] - ref);
                row_max[mt][r] = mx[r];
                mx[r] = ref;
            }
#pragma unroll
            for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    s[nt][e] = exp2f(s[nt][e] - mx[e >> 1]);
                    sum[e >> 1] += s[nt][e];
                }
#pragma unroll
            for (int r = 0; r < 2; ++r)
                row_sum[mt][r] = row_sum[mt][r] * alpha[r] + sum[r]; // quad-partial; reduced at the end
#pragma unroll
            for (int dt = 0; dt < DT; ++dt) {
                o[mt][dt][0] *= alpha[0];
                o[mt][dt][1] *= alpha[0];
                o[mt][dt][2] *= alpha[1];
                o[mt][dt][3] *= alpha[1];
            }
            // O += P V over the BN keys in k16 steps
#pragma unroll
            for (int kk = 0; kk < BN / 16; ++kk) {
                const unsigned a[4] = {pack_bf16(s[2 * kk][0], s[2 * kk][1]), pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                    pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
                for (int dp = 0; dp < DT / 2; ++dp) {
                    unsigned bv[4];
                    ldsm_x4_t(bv, vs + (kk * 16 + (lane % 8) + ((lane / 8) % 2) * 8) * S + dp * 16 + (lane / 16) * 8);
                    mma16816(o[mt][2 * dp], a, bv[0], bv[1]);
                    mma16816(o[mt][2 * dp + 1], a, bv[2], bv[3]);
                }
            }
        }
    }
    cp_wait(0);

    // Normalise and store the rows inside the sequence.
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
        const int wrow = (warp * MT + mt) * 16;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float l = row_sum[mt][r];
            l += __shfl_xor_sync(0xffffffffu, l, 1);
            l += __shfl_xor_sync(0xffffffffu, l, 2);
            const int row = m0 + wrow + lane / 4 + r * 8;
            if (row >= len)
                continue;
            const float inv = 1.0f / l;
            __nv_bfloat16* og = p.o + (static_cast<std::size_t>(seq0) + row) * q_row + static_cast<std::size_t>(h) * D;
#pragma unroll
            for (int dt = 0; dt < DT; ++dt)
                *reinterpret_cast<__nv_bfloat162*>(og + dt * 8 + (lane % 4) * 2)
                    = __floats2bfloat162_rn(o[mt][dt][2 * r] * inv, o[mt][dt][2 * r + 1] * inv);
        }
    }
}

} // namespace kwb::cuda::prefill
