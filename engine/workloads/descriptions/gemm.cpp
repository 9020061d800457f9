// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/param_helpers.h"

namespace kwb {

const WorkloadDescription& gemm_description()
{
    static const WorkloadDescription d {
        "gemm",
        "C = A*B. cpu: fp32, square size^3, cache-blocked with packed panels and a 4x8 register tile; cuda: bf16 "
        "inputs, fp32 accumulation, M x N x K tensor-core tiles (mma.sync, cp.async pipeline) or cuBLASLt",
        {Backend::Cpu, Backend::Cuda},
        []() -> std::vector<ParamSpec> {
            const auto cuda = [](ParamSpec p) { return only_on(Backend::Cuda, std::move(p)); };
            auto iterations = iterations_param(5, {1, 5, 10});
            iterations.cuda_default = 10;
            return {
                only_on(Backend::Cpu, {"size", 512, int_values({128, 256, 384, 512, 768, 1024}), "M = N = K"}),
                only_on(Backend::Cpu,
                    {"block", 64, int_values({16, 32, 64, 128, 256}),
                        "edge of the square cache block (rows of A, columns of B, K slice); need not divide size"}),
                only_on(Backend::Cpu, threads_param()),
                iterations,
                cuda({"m", 4096, int_values({1000, 2048, 4096, 8192}),
                    "rows of A and C (any size; need not divide the tile)"}),
                cuda({"n", 4096, int_values({1030, 2048, 4096, 8192}), "columns of B and C"}),
                cuda({"k", 4096, int_values({520, 2048, 4096, 8192}), "columns of A, rows of B"}),
                cuda({"impl", "tiled", {"tiled", "cublaslt", "wgmma"},
                    "tiled: the plugin's mma.sync tensor-core kernel; cublaslt: the library, the reference arm; wgmma: "
                    "the Hopper (sm_90a) TMA + wgmma kernel, block 128x128x64 or 128x256x64, 12 warps"}),
                cuda({"c_dtype", "auto", {"auto", "fp32", "bf16"},
                    "C's type: auto is bf16 for impl cublaslt (what torch.mm returns for bf16 inputs) and fp32 for the "
                    "own kernels (what they write); bf16 is for cublaslt only"}),
                cuda({"algo", "best", {"best", "heuristic"},
                    "impl cublaslt: best times the heuristic's top 8 algorithms once for the shape and keeps the "
                    "fastest (as cuBLAS-based frameworks autotune); heuristic takes its first"}),
                cuda({"block_m", 128, int_values({64, 128, 256}), "rows of C per thread block"}),
                cuda({"block_n", 128, int_values({64, 128, 256}), "columns of C per thread block"}),
                cuda({"block_k", 32, int_values({32, 64}), "K slice per pipeline stage"}),
                cuda({"stages", 3, int_values({2, 3, 4}), "cp.async shared-memory pipeline depth"}),
                cuda({"warps", 8, int_values({4, 8, 12}),
                    "warps per thread block: 4 or 8 for impl tiled, 12 for impl wgmma"}),
                cache_param(),
                fault_param(),
            };
        }(),
        []() -> std::vector<MetricSpec> {
            return {time_metric("one GEMM"),
                {"gflops", "GFLOP/s", Direction::Higher, "2*M*N*K / time_ms: arithmetic throughput"},
                {"tflops", "TFLOP/s", Direction::Higher,
                    "2*M*N*K / time_ms, in TFLOP/s (% of peak on the hardware page)"}};
        }(),
        {},
        false,
    };
    return d;
}

} // namespace kwb
