// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/block_needs.h"

#include "workloads/descriptions/builtin_descriptions.h"

#include <fmt/format.h>

namespace kwb {

// The CUDA kernels' shared memory per block, as they size it at launch: impl tiled
// (kernels/cuda/gemm_tiled_kernel.cuh, tiled_smem_bytes: bf16 A and B tiles padded by 8 elements a
// row, one pair per stage) and impl wgmma (gemm_wgmma.cu, wgmma_smem_bytes: 1 KiB alignment
// slack, a 128x64 A and a 64 x block_n B tile per stage, one 16-byte barrier pair per stage). The
// GPU backend's check_config answers with the compiled kernel's exact figure on a device;
// tests/gpu/gpu_check_config pins the tiled figure there and tst_hardware_traps pins this one to
// the same numbers.
std::optional<BlockNeeds> gemm_cuda_block_needs(const nlohmann::json& p)
{
    const std::string impl = p.value("impl", "tiled");
    if (impl == "cublaslt")
        return std::nullopt; // the library picks its own kernels
    const int stages = p.value("stages", 3), warps = p.value("warps", 8);
    const int bm = impl == "wgmma" ? 128 : p.value("block_m", 128);
    const int bk = impl == "wgmma" ? 64 : p.value("block_k", 32);
    const int bn = p.value("block_n", 128);
    constexpr int kPad = 8;
    const double smem = impl == "wgmma" ? 1024.0 + stages * (bm * bk * 2.0 + bk * bn * 2.0) + 16.0 * stages
                                        : stages * (bm * (bk + kPad) + bk * (bn + kPad)) * 2.0;
    return BlockNeeds {fmt::format("{} block {}x{}x{}, {} stages", impl, bm, bn, bk, stages), smem, warps * 32};
}

std::optional<BlockNeeds> builtin_block_needs(const Experiment& experiment, const Arm& arm)
{
    if (experiment.backend != "cuda" && experiment.backend != "auto")
        return std::nullopt;
    if (experiment.workload != gemm_description().name)
        return std::nullopt;
    try {
        return gemm_cuda_block_needs(resolve_params(gemm_description(), arm.params, Backend::Cuda));
    } catch (const WorkloadError&) {
        return std::nullopt; // parameters of the cpu backend: nothing runs on a GPU
    }
}

} // namespace kwb
