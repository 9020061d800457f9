// SPDX-License-Identifier: GPL-3.0-or-later
// The Hopper GEMM: TMA tile loads completing on mbarriers, warpgroup MMAs (wgmma) reading both
// operands from 128-byte-swizzled shared memory, warp specialisation (one producer warpgroup, two
// consumer warpgroups). Compiled for sm_90a only (see CMakeLists.txt); the plain sm_90 tiled
// kernel stays the portable path.
//
// Shared-memory layout of one stage (what the descriptors below describe):
//   A: 128 rows (M) x 64 bf16 (K), 128 bytes a row, K-major, swizzled in 1 KiB atoms of 8 rows;
//      one TMA box {64 K, 128 M}. Descriptor: SBO = 1024 (next 8 rows), LBO unused; K steps of 16
//      advance the start address by 32 bytes inside the atom.
//   B: block_n / 64 boxes of {64 N, 64 K}, each 64 rows (K) x 128 bytes (N), N-major ("transposed"
//      B, imm-trans-b = 1). Descriptor: LBO = 8192 (next 64 columns of N, the next box), SBO = 1024
//      (next 8 rows of K); K steps of 16 advance the start address by 16 rows = 2048 bytes.
#include "cuda_check.h"
#include "gemm_wgmma.h"
#include "gpu_workload.h"

#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <mutex>

namespace kwb::cuda::gemm {
namespace {

constexpr int kBM = kWgmmaBlockM, kBK = kWgmmaBlockK;

__host__ __device__ constexpr int stage_bytes(int bn)
{
    return kBM * kBK * 2 + kBK * bn * 2;
}

__device__ __forceinline__ std::uint32_t saddr(const void* p)
{
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(saddr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(std::uint64_t* bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(saddr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(saddr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, int parity)
{
    std::uint32_t done = 0;
    do {
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(saddr(bar)), "r"(parity)
            : "memory");
    } while (!done);
}
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
            "r"(saddr(dst)),
        "l"(map), "r"(x), "r"(y), "r"(saddr(bar))
        : "memory");
}

// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63).
__device__ __forceinline__ std::uint64_t smem_desc(const void* p, std::uint32_t lbo, std::uint32_t sbo)
{
    std::uint64_t d = (saddr(p) & 0x3FFFF) >> 4;
    d |= static_cast<std::uint64_t>((lbo >> 4) & 0x3FFF) << 16;
    d |= static_cast<std::uint64_t>((sbo >> 4) & 0x3FFF) << 32;
    d |= 1ull << 62;
    return d;
}

__device__ __forceinline__ void wgmma_m64n128(float (&d)[64], std::uint64_t da, std::uint64_t db, int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
                 "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(da), "l"(db), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_m64n256(float (&d)[128], std::uint64_t da, std::uint64_t db, int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
                 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
                 "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
                 "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
                 "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
                 "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
                 "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                 "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                 "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                 "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                 "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                 "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]),
                 "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
                 "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),
                 "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                 "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(da), "l"(db), "r"(scale_d));
}

// Keeps the compiler from moving accumulator reads across the asynchronous MMAs' wait.
template<int R> __device__ __forceinline__ void fence_accumulators(float (&acc)[R])
{
#pragma unroll
    for (int i = 0; i < R; ++i)
        asm volatile("" : "+f"(acc[i])::"memory");
}

template<int BN> struct Wgmma;
template<> struct Wgmma<128> {
    static __device__ __forceinline__ void mma(float (&d)[64], std::uint64_t a, std::uint64_t b)
    {
        wgmma_m64n128(d, a, b, 1);
    }
};
template<> struct Wgmma<256> {
    static __device__ __forceinline__ void mma(float (&d)[128], std::uint64_t a, std::uint64_t b)
    {
        wgmma_m64n256(d, a, b, 1);
    }
};

template<int BN>
__global__ void __launch_bounds__(kWgmmaWarps * 32, 1) wgmma_gemm(const __grid_constant__ CUtensorMap tma_a,
    const __grid_constant__ CUtensorMap tma_b, float* __restrict__ C, int M, int N, int K, int stages)
{
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr int kABytes = kBM * kBK * 2, kStage = stage_bytes(BN);
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // The swizzle pattern repeats every 1 KiB and is computed from the address: tiles start on 1 KiB.
    unsigned char* smem = smem_raw + ((1024 - (saddr(smem_raw) & 1023)) & 1023);
    auto* full = reinterpret_cast<std::uint64_t*>(smem + stages * kStage);
    auto* empty = full + stages;

    // Grouped launch order: eight row-tiles sweep the columns together so their A and B slices
    // are reused from L2.
    constexpr int kGroup = 8;
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int pid = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = (pid / (kGroup * tiles_n)) * kGroup;
    const int group_rows = min(tiles_m - first_m, kGroup);
    const int bm0 = (first_m + (pid % (kGroup * tiles_n)) % group_rows) * kBM;
    const int bn0 = ((pid % (kGroup * tiles_n)) / group_rows) * BN;

    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 2 * 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    const int ktiles = (K + kBK - 1) / kBK;
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            for (int kt = 0; kt < ktiles; ++kt) {
                const int s = kt % stages;
                if (kt >= stages)
                    mbar_wait(&empty[s], ((kt / stages) - 1) & 1);
                unsigned char* st = smem + s * kStage;
                mbar_expect_tx(&full[s], kStage); // out-of-bounds parts are zero-filled and counted
                tma_load_2d(st, &tma_a, kt * kBK, bm0, &full[s]);
#pragma unroll
                for (int j = 0; j < BN / 64; ++j)
                    tma_load_2d(st + kABytes + j * (kBK * 128), &tma_b, bn0 + j * 64, kt * kBK, &full[s]);
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        float acc[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; ++i)
            acc[i] = 0.f;
        const int row0 = (wg - 1) * 64; // this warpgroup's 64 rows of the block's 128
        for (int kt = 0; kt < ktiles; ++kt) {
            const int s = kt % stages;
            mbar_wait(&full[s], (kt / stages) & 1);
            const unsigned char* a = smem + s * kStage + row0 * 128;
            const unsigned char* b = smem + s * kStage + kABytes;
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
            for (int kk = 0; kk < kBK / 16; ++kk)
                Wgmma<BN>::mma(acc, smem_desc(a + kk * 32, 16, 1024), smem_desc(b + kk * 2048, kBK * 128, 1024));
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            // Keep this slice's MMAs in flight; the previous slice's are done, so its slot is free.
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            fence_accumulators(acc);
            if (kt > 0)
                mbar_arrive(&empty[(kt - 1) % stages]);
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        fence_accumulators(acc);
        // Accumulator layout of m64nN: register 4j + 2h + e holds row 16 * warp + lane / 4 + 8h,
        // column 8j + 2 * (lane % 4) + e.
        const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
        const bool pairs = (N % 2) == 0;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = bm0 + row0 + warp * 16 + lane / 4 + h * 8;
                const int col = bn0 + j * 8 + (lane % 4) * 2;
                if (row >= M)
                    continue;
                float* out = C + static_cast<std::size_t>(row) * N + col;
                if (pairs && col + 1 < N)
                    *reinterpret_cast<float2*>(out) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
                else {
                    if (col < N)
                        out[0] = acc[4 * j + 2 * h];
                    if (col + 1 < N)
                        out[1] = acc[4 * j + 2 * h + 1];
                }
            }
    }
#endif
}

PFN_cuTensorMapEncodeTiled_v12000 encode_fn()
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q {};
        KWB_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
        if (!p || q != cudaDriverEntryPointSuccess)
            throw GpuError("gemm: the driver has no cuTensorMapEncodeTiled (TMA) entry point");
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }();
    return fn;
}

// A 2-D bf16 row-major matrix (rows x cols) as a tensor map with boxes of box_cols x box_rows.
void encode(unsigned char (&out)[128], const void* base, int rows, int cols, int box_cols, int box_rows)
{
    static_assert(sizeof(CUtensorMap) == 128);
    CUtensorMap map;
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
    const cuuint32_t elem[2] = {1, 1};
    const CUresult r = encode_fn()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides,
        box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw GpuError("gemm: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r)));
    std::memcpy(out, &map, sizeof map);
}

} // namespace

std::size_t wgmma_smem_bytes(int bn, int stages)
{
    return 1024 + static_cast<std::size_t>(stages) * stage_bytes(bn) + 16 * static_cast<std::size_t>(stages);
}

const void* wgmma_kernel(int bn)
{
    if (bn == 128)
        return reinterpret_cast<const void*>(wgmma_gemm<128>);
    if (bn == 256)
        return reinterpret_cast<const void*>(wgmma_gemm<256>);
    return nullptr;
}

std::string wgmma_refusal(int m, int n, int k, int bm, int bn, int bk, int stages, int warps)
{
    (void)m;
    if (bm != kBM || bk != kBK || (bn != 128 && bn != 256))
        return "gemm: impl wgmma is built for block 128x128x64 and 128x256x64 only (asked " + std::to_string(bm) + "x"
            + std::to_string(bn) + "x" + std::to_string(bk) + ")";
    if (warps != kWgmmaWarps)
        return "gemm: impl wgmma runs 12 warps per block (one producer and two consumer warpgroups); asked "
            + std::to_string(warps);
    if (stages < 2 || stages > 4)
        return "gemm: impl wgmma supports stages 2, 3 or 4 (asked " + std::to_string(stages) + ")";
    if (n % 8 != 0 || k % 8 != 0)
        return "gemm: impl wgmma needs n and k to be multiples of 8 (TMA row strides are multiples of 16 bytes); "
               "use impl tiled for this shape";
    return {};
}

WgmmaPlan make_wgmma_plan(const void* a, const void* b, int m, int n, int k, int bn, int stages)
{
    WgmmaPlan plan;
    encode(plan.tma_a, a, m, k, kBK, kBM);
    encode(plan.tma_b, b, k, n, 64, kBK);
    plan.m = m, plan.n = n, plan.k = k, plan.bn = bn, plan.stages = stages;
    return plan;
}

void launch_wgmma(const WgmmaPlan& plan, float* c, cudaStream_t stream)
{
    CUtensorMap ta, tb;
    std::memcpy(&ta, plan.tma_a, sizeof ta);
    std::memcpy(&tb, plan.tma_b, sizeof tb);
    const dim3 grid((plan.n + plan.bn - 1) / plan.bn, (plan.m + kBM - 1) / kBM);
    const std::size_t smem = wgmma_smem_bytes(plan.bn, plan.stages);
    if (plan.bn == 256)
        wgmma_gemm<256><<<grid, kWgmmaWarps * 32, smem, stream>>>(ta, tb, c, plan.m, plan.n, plan.k, plan.stages);
    else
        wgmma_gemm<128><<<grid, kWgmmaWarps * 32, smem, stream>>>(ta, tb, c, plan.m, plan.n, plan.k, plan.stages);
}

} // namespace kwb::cuda::gemm
