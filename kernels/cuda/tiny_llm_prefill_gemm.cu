// SPDX-License-Identifier: GPL-3.0-or-later
#include "config_check.h"
#include "gemm_tiled_kernel.cuh"
#include "gemm_wgmma.h"
#include "tiny_llm_prefill_gemm.h"

#include <cstdint>
#include <vector>

namespace kwb::cuda::tllm {
namespace {

constexpr int kWgmmaBN = 128, kWgmmaStages = 4;
constexpr int kTiledBM = 128, kTiledBN = 128, kTiledBK = 64, kTiledWarps = 4, kTiledStages = 3;

// out[c][r] = in[r][c] for a rows x cols matrix of 16-bit elements (bf16 bits, copied as they are),
// through 32 x 32 tiles of shared memory (one column of padding against bank conflicts).
__global__ void transpose16(const std::uint16_t* in, std::uint16_t* out, int rows, int cols)
{
    __shared__ std::uint16_t tile[32][33];
    const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    for (int i = threadIdx.y; i < 32; i += blockDim.y) {
        const int r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < cols)
            tile[i][threadIdx.x] = in[static_cast<std::size_t>(r) * cols + c];
    }
    __syncthreads();
    for (int i = threadIdx.y; i < 32; i += blockDim.y) {
        const int c = c0 + i, r = r0 + threadIdx.x;
        if (c < cols && r < rows)
            out[static_cast<std::size_t>(c) * rows + r] = tile[threadIdx.x][i];
    }
}

struct Linear {
    std::size_t at;
    int n, k;
};

std::vector<Linear> linears(const ModelShape& m, const WeightLayout& L)
{
    std::vector<Linear> all;
    for (int l = 0; l < m.layers; ++l) {
        all.push_back({L.qkv(l), m.qkv_width(), m.hidden});
        all.push_back({L.wo(l), m.hidden, m.hidden});
        all.push_back({L.gate_up(l), 2 * m.ffn, m.hidden});
        all.push_back({L.down(l), m.hidden, m.ffn});
    }
    all.push_back({L.lm_head, m.vocab, m.hidden});
    return all;
}

[[noreturn]] void refuse(const std::string& impl, const std::string& why)
{
    throw ConfigError("tiny_llm: prefill_gemm " + impl + ": " + why);
}

std::string shape_text(int n, int k)
{
    return std::to_string(n) + " x " + std::to_string(k);
}

} // namespace

PrefillGemm::PrefillGemm(const std::string& impl, const ModelShape& m, const WeightLayout& layout,
    const __nv_bfloat16* weights, int max_rows, cudaStream_t stream)
    : wgmma_(impl == "wgmma")
    , first_(layout.qkv(0))
{
    if (impl != "wgmma" && impl != "tiled")
        refuse(impl, "not an own GEMM (wgmma or tiled)");
    const auto all = linears(m, layout);
    ResourceNeeds needs;
    if (wgmma_) {
#ifdef KWB_HAVE_WGMMA
        for (const auto& w : all)
            if (const auto why = gemm::wgmma_refusal(max_rows, w.n, w.k, gemm::kWgmmaBlockM, kWgmmaBN,
                    gemm::kWgmmaBlockK, kWgmmaStages, gemm::kWgmmaWarps);
                !why.empty())
                refuse(impl, "linear of " + shape_text(w.n, w.k) + " refused: " + why);
        needs = {"wgmma block 128x128x64, 4 stages", gemm::wgmma_kernel(kWgmmaBN), gemm::kWgmmaWarps * 32,
            gemm::wgmma_smem_bytes(kWgmmaBN, kWgmmaStages), {}};
#else
        refuse(impl, "not in this build (it needs sm_90a; KWB_CUDA_ARCHS names no 90); use tiled or cublaslt");
#endif
    } else {
        tiled_ = gemm::find_tiled(kTiledBM, kTiledBN, kTiledBK, kTiledWarps);
        if (!tiled_)
            refuse(impl, "block 128x128x64 with 4 warps is not in this build");
        needs = {"tiled block 128x128x64, 3 stages, 4 warps", reinterpret_cast<const void*>(tiled_), kTiledWarps * 32,
            gemm::tiled_smem_bytes(kTiledBM, kTiledBN, kTiledBK, kTiledStages), {}};
    }
    if (max_rows < 1)
        refuse(impl, "no rows to multiply");
    int device = 0;
    KWB_CUDA(cudaGetDevice(&device));
    try {
        check_needs(needs, device); // this GPU has the code and the shared memory; raises the smem limit
    } catch (const ConfigError& e) {
        refuse(impl, e.what());
    }

    transposed_ = DeviceBuffer((layout.total - first_) * 2);
    for (const auto& w : all) {
        // TMA (wgmma) needs 16-byte aligned rows and bases; the tiled kernel's 16-byte loads too.
        if ((w.at - first_) % 8 != 0)
            refuse(impl, "linear of " + shape_text(w.n, w.k) + " is not 16-byte aligned in the weights");
        const dim3 grid(static_cast<unsigned>((w.k + 31) / 32), static_cast<unsigned>((w.n + 31) / 32));
        transpose16<<<grid, dim3(32, 8), 0, stream>>>(reinterpret_cast<const std::uint16_t*>(weights + w.at),
            reinterpret_cast<std::uint16_t*>(transposed_.as<__nv_bfloat16>() + (w.at - first_)), w.n, w.k);
        KWB_CUDA_LAUNCHED("transpose16");
    }
}

void PrefillGemm::run(const __nv_bfloat16* in, int rows, std::size_t at, int n, int k, float* out, cudaStream_t s) const
{
    const __nv_bfloat16* b = transposed(at);
    if (wgmma_) {
#ifdef KWB_HAVE_WGMMA
        // The tensor maps hold the row count and the input's address, so one per call (host-side
        // encoding, a few microseconds): rows past `rows` are zero-filled by TMA and never stored.
        gemm::launch_wgmma(gemm::make_wgmma_plan(in, b, rows, n, k, kWgmmaBN, kWgmmaStages), out, s);
        KWB_CUDA_LAUNCHED("wgmma prefill GEMM");
#endif
        return;
    }
    const dim3 grid(
        static_cast<unsigned>((n + kTiledBN - 1) / kTiledBN), static_cast<unsigned>((rows + kTiledBM - 1) / kTiledBM));
    const int aligned = n % 8 == 0 && k % 8 == 0 ? 1 : 0;
    tiled_<<<grid, kTiledWarps * 32, gemm::tiled_smem_bytes(kTiledBM, kTiledBN, kTiledBK, kTiledStages), s>>>(
        in, b, out, rows, n, k, kTiledStages, aligned);
    KWB_CUDA_LAUNCHED("tiled prefill GEMM");
}

} // namespace kwb::cuda::tllm
