// SPDX-License-Identifier: GPL-3.0-or-later
#include "block_needs.h"
#include "cpu/cpu_workloads.h"
#include "cpu/gemm.h"
#include "cpu/workload_util.h"
#include "workloads/cuda_workload.h"

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <fmt/format.h>

namespace kwb::cpu {
namespace {

constexpr const char* kName = "gemm";

class PreparedGemm final : public PreparedWorkload {
public:
    PreparedGemm(int size, int block, int threads, int iterations, bool wrong_result)
        : n_(size)
        , iterations_(iterations)
        , wrong_result_(wrong_result)
        , pool_(threads)
        , gemm_(block, pool_)
        , a_(static_cast<std::size_t>(size) * size)
        , b_(a_.size())
        , c_(a_.size())
    {
        fill_uniform(a_, 1);
        fill_uniform(b_, 2);
    }

    RepetitionResult run_once() override
    {
        RepetitionResult r;
        r.iterations = time_iterations(iterations_, [&] { gemm_.run(n_, n_, n_, a_.data(), b_.data(), c_.data()); });
        const double ms = mean(r.iterations);
        r.metrics["time_ms"] = ms;
        r.metrics["gflops"] = 2.0 * n_ * n_ * static_cast<double>(n_) / (ms * 1e6);
        r.metrics["tflops"] = r.metrics["gflops"] / 1e3;
        return r;
    }

    bool set_launches(int launches) override
    {
        iterations_ = launches;
        return true;
    }

    VerifyResult verify() override
    {
        gemm_.run(n_, n_, n_, a_.data(), b_.data(), c_.data());
        if (wrong_result_)
            c_[c_.size() / 2] += 1.0f;
        // The textbook loop costs n^3 scalar steps; past 512^3 (a few tenths of a second) it
        // checks 64 rows spread from the first to the last, which still crosses every column
        // block and the partial last row block.
        const int rows = n_ <= 512 ? n_ : 64;
        std::vector<float> ref(static_cast<std::size_t>(n_));
        double err = 0, scale = 1;
        for (int s = 0; s < rows; ++s) {
            const int i = rows == n_ ? s : static_cast<int>(static_cast<long long>(s) * (n_ - 1) / (rows - 1));
            const auto row = static_cast<std::size_t>(i) * n_;
            gemm_reference(1, n_, n_, a_.data() + row, b_.data(), ref.data());
            err = std::max(err, max_abs_diff({c_.data() + row, ref.size()}, ref));
            scale = std::max(scale, max_abs(ref));
        }
        // A k*eps relative bound: reordered fp32 sums drift by about sqrt(k)*eps, far below it,
        // while a wrong index or a lost block is off by O(1).
        return verify_result(err, n_ * FLT_EPSILON * scale, "gemm vs triple loop");
    }

private:
    int n_;
    int iterations_;
    bool wrong_result_;
    ThreadPool pool_;
    BlockedGemm gemm_;
    std::vector<float> a_, b_, c_;
};

class GemmWorkload final : public Workload {
public:
    std::string name() const override { return kName; }
    std::string description() const override
    {
        return "C = A*B. cpu: fp32, square size^3, cache-blocked with packed panels and a 4x8 register tile; "
               "cuda: bf16 inputs, fp32 accumulation, M x N x K tensor-core tiles (mma.sync, cp.async pipeline) or "
               "cuBLASLt";
    }
    std::vector<Backend> backends() const override { return {Backend::Cpu, Backend::Cuda}; }
    std::vector<ParamSpec> params() const override
    {
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
                "tiled: the plugin's mma.sync tensor-core kernel; cublaslt: the library, the reference arm; "
                "wgmma: the Hopper (sm_90a) TMA + wgmma kernel, block 128x128x64 or 128x256x64, 12 warps"}),
            cuda({"block_m", 128, int_values({64, 128, 256}), "rows of C per thread block"}),
            cuda({"block_n", 128, int_values({64, 128, 256}), "columns of C per thread block"}),
            cuda({"block_k", 32, int_values({32, 64}), "K slice per pipeline stage"}),
            cuda({"stages", 3, int_values({2, 3, 4}), "cp.async shared-memory pipeline depth"}),
            cuda({"warps", 8, int_values({4, 8, 12}),
                "warps per thread block: 4 or 8 for impl tiled, 12 for impl wgmma"}),
            cache_param(),
            fault_param(),
        };
    }
    std::vector<MetricSpec> metrics() const override
    {
        return {time_metric("one GEMM"),
            {"gflops", "GFLOP/s", Direction::Higher, "2*M*N*K / time_ms: arithmetic throughput"},
            {"tflops", "TFLOP/s", Direction::Higher, "2*M*N*K / time_ms, in TFLOP/s (% of peak on the hardware page)"}};
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cuda)
            return prepare_cuda(kName, params, cuda_run_options(params), [](const nlohmann::json& run, auto& metrics) {
                cuda_time_metrics(run, metrics);
                if (const auto t = metrics.find("tflops"); t != metrics.end())
                    metrics["gflops"] = t->second * 1e3;
            });
        require_cpu(kName, backend);
        const CpuConfig c = cpu_config(params);
        return std::make_unique<PreparedGemm>(c.size, c.block, c.threads, c.iterations, wants_wrong_result(params));
    }

    void validate(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cpu)
            cpu_config(params);
    }

private:
    struct CpuConfig {
        int size, block, threads, iterations;
    };
    // The cpu backend's ranges, shared by prepare() and validate().
    static CpuConfig cpu_config(const nlohmann::json& params)
    {
        return {static_cast<int>(int_param(params, kName, "size", 1, 4096)),
            static_cast<int>(int_param(params, kName, "block", 1, 4096)),
            static_cast<int>(int_param(params, kName, "threads", 1, 256)),
            static_cast<int>(int_param(params, kName, "iterations", 1, 100000))};
    }
};

} // namespace

std::unique_ptr<Workload> make_gemm_workload()
{
    return std::make_unique<GemmWorkload>();
}

} // namespace kwb::cpu

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

} // namespace kwb
