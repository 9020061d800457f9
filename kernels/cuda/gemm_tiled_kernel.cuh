// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The tiled tensor-core GEMM: C (M x N fp32, row-major) = A (M x K bf16 row-major) * B (K x N
// bf16 row-major) with fp32 accumulation. Each block computes a BM x BN tile of C with WARPS warps
// (2 x WARPS/2 warp grid); K advances in BK slices through a `stages`-deep ring of shared-memory
// buffers filled by cp.async, so loads of later slices overlap the mma.sync of the current one.
// Fragments come from shared memory through ldmatrix (B transposed on the way). Rows are padded by
// 16 bytes so ldmatrix's eight row addresses fall in distinct banks.
//
// Ragged shapes: when K and N are multiples of 8 every 16-byte chunk is wholly inside or outside
// the matrix, and cp.async zero-fills the outside ones; otherwise (`aligned` false) tiles are
// loaded element by element with bounds checks. The epilogue checks every row and column.
#include <cstdint>
#include <cuda_bf16.h>

namespace kwb::cuda::gemm {

constexpr int kPadElements = 8;

__host__ __device__ constexpr std::size_t tiled_smem_bytes(int bm, int bn, int bk, int stages)
{
    return static_cast<std::size_t>(stages) * (bm * (bk + kPadElements) + bk * (bn + kPadElements)) * 2;
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p)
{
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async16(void* dst, const void* src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
template<int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}
__device__ __forceinline__ void mma_bf16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void cp_async_wait_for(int stages)
{
    // wait_group takes an immediate: the allowed number of pending slices is stages - 2.
    switch (stages) {
    case 2:
        cp_async_wait<0>();
        break;
    case 3:
        cp_async_wait<1>();
        break;
    default:
        cp_async_wait<2>();
        break;
    }
}

template<int BM, int BN, int BK, int WARPS>
__global__ void __launch_bounds__(WARPS * 32) tiled_gemm(const __nv_bfloat16* __restrict__ A,
    const __nv_bfloat16* __restrict__ B, float* __restrict__ C, int M, int N, int K, int stages, int aligned)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int kThreads = WARPS * 32;
    constexpr int WM = 2, WN = WARPS / 2;
    constexpr int WTM = BM / WM, WTN = BN / WN;
    constexpr int MI = WTM / 16, NI = WTN / 8;
    static_assert(MI >= 1 && NI >= 2 && NI % 2 == 0, "warp tile too small");
    constexpr int AS = BK + kPadElements, BS = BN + kPadElements;
    constexpr int A_TILE = BM * AS, B_TILE = BK * BS;

    extern __shared__ __align__(16) unsigned char smem_raw[];
    auto* sA = reinterpret_cast<__nv_bfloat16*>(smem_raw);
    auto* sB = sA + stages * A_TILE;

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = warp / WN, wn = warp % WN;

    // Grouped launch order: eight row-tiles sweep the columns together so their A and B slices
    // are reused from L2.
    constexpr int kGroup = 8;
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int pid = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = (pid / (kGroup * tiles_n)) * kGroup;
    const int group_rows = min(tiles_m - first_m, kGroup);
    const int tm = first_m + (pid % (kGroup * tiles_n)) % group_rows;
    const int tn = (pid % (kGroup * tiles_n)) / group_rows;
    const int bm0 = tm * BM, bn0 = tn * BN;

    const auto load = [&](int stage, int kt) {
        const int k0 = kt * BK;
        __nv_bfloat16* a = sA + stage * A_TILE;
        __nv_bfloat16* b = sB + stage * B_TILE;
        if (aligned) {
#pragma unroll
            for (int c = tid; c < BM * BK / 8; c += kThreads) {
                const int r = c / (BK / 8), col = (c % (BK / 8)) * 8;
                const int gr = bm0 + r, gk = k0 + col;
                const bool in = gr < M && gk < K;
                cp_async16(a + r * AS + col, in ? A + static_cast<std::size_t>(gr) * K + gk : A, in ? 16 : 0);
            }
#pragma unroll
            for (int c = tid; c < BK * BN / 8; c += kThreads) {
                const int r = c / (BN / 8), col = (c % (BN / 8)) * 8;
                const int gk = k0 + r, gn = bn0 + col;
                const bool in = gk < K && gn < N;
                cp_async16(b + r * BS + col, in ? B + static_cast<std::size_t>(gk) * N + gn : B, in ? 16 : 0);
            }
        } else {
            const __nv_bfloat16 zero = __float2bfloat16(0.f);
            for (int e = tid; e < BM * BK; e += kThreads) {
                const int r = e / BK, col = e % BK, gr = bm0 + r, gk = k0 + col;
                a[r * AS + col] = (gr < M && gk < K) ? A[static_cast<std::size_t>(gr) * K + gk] : zero;
            }
            for (int e = tid; e < BK * BN; e += kThreads) {
                const int r = e / BN, col = e % BN, gk = k0 + r, gn = bn0 + col;
                b[r * BS + col] = (gk < K && gn < N) ? B[static_cast<std::size_t>(gk) * N + gn] : zero;
            }
        }
    };

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[i][j][e] = 0.f;

    const int ktiles = (K + BK - 1) / BK;
    for (int s = 0; s < stages - 1; ++s) {
        if (s < ktiles)
            load(s, s);
        cp_async_commit();
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        cp_async_wait_for(stages);
        __syncthreads(); // slice kt is visible to all; slot (kt - 1) % stages is free again
        const int next = kt + stages - 1;
        if (next < ktiles)
            load(next % stages, next);
        cp_async_commit();

        const __nv_bfloat16* a = sA + (kt % stages) * A_TILE;
        const __nv_bfloat16* b = sB + (kt % stages) * B_TILE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            std::uint32_t af[MI][4];
            std::uint32_t bfr[NI][2];
#pragma unroll
            for (int i = 0; i < MI; ++i)
                ldmatrix_x4(af[i], a + (wm * WTM + i * 16 + lane % 16) * AS + kk + (lane / 16) * 8);
#pragma unroll
            for (int j = 0; j < NI; j += 2) {
                std::uint32_t r[4];
                ldmatrix_x4_trans(r, b + (kk + lane % 16) * BS + wn * WTN + j * 8 + (lane / 16) * 8);
                bfr[j][0] = r[0];
                bfr[j][1] = r[1];
                bfr[j + 1][0] = r[2];
                bfr[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j)
                    mma_bf16(acc[i][j], af[i], bfr[j][0], bfr[j][1]);
        }
    }
    cp_async_wait<0>();

    const bool pairs = (N % 2) == 0; // float2 stores stay 8-byte aligned
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = bm0 + wm * WTM + i * 16 + lane / 4 + h * 8;
                const int col = bn0 + wn * WTN + j * 8 + (lane % 4) * 2;
                if (row >= M)
                    continue;
                float* out = C + static_cast<std::size_t>(row) * N + col;
                if (pairs && col + 1 < N)
                    *reinterpret_cast<float2*>(out) = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                else {
                    if (col < N)
                        out[0] = acc[i][j][2 * h];
                    if (col + 1 < N)
                        out[1] = acc[i][j][2 * h + 1];
                }
            }
#endif
}

} // namespace kwb::cuda::gemm
