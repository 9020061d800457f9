// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/cpu_workloads.h"
#include "cpu/gemm.h"
#include "cpu/workload_util.h"
#include "workloads/cuda_workload.h"
#include "workloads/descriptions/builtin_descriptions.h"

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

class GemmWorkload final : public DescribedWorkload {
public:
    GemmWorkload()
        : DescribedWorkload(gemm_description())
    {
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
