// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/cpu_workloads.h"
#include "cpu/rmsnorm.h"
#include "cpu/workload_util.h"
#include "workloads/cuda_workload.h"
#include "workloads/descriptions/builtin_descriptions.h"

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <fmt/format.h>

namespace kwb::cpu {
namespace {

constexpr const char* kName = "rmsnorm";

class PreparedRmsNorm final : public PreparedWorkload {
public:
    PreparedRmsNorm(int rows, int hidden, int vector_width, int threads, int iterations)
        : rows_(rows)
        , hidden_(hidden)
        , width_(vector_width)
        , iterations_(iterations)
        , pool_(threads)
        , x_(static_cast<std::size_t>(rows) * hidden)
        , weight_(static_cast<std::size_t>(hidden))
        , y_(x_.size())
    {
        fill_uniform(x_, 21);
        fill_uniform(weight_, 22, 0.5f, 1.5f);
    }

    RepetitionResult run_once() override
    {
        RepetitionResult r;
        r.iterations = time_iterations(iterations_, [&] { run(); });
        const double ms = mean(r.iterations);
        r.metrics["time_ms"] = ms;
        r.metrics["gbs"] = 2.0 * sizeof(float) * static_cast<double>(x_.size()) / (ms * 1e6);
        return r;
    }

    bool set_launches(int launches) override
    {
        iterations_ = launches;
        return true;
    }

    VerifyResult verify() override
    {
        run();
        std::vector<float> ref(y_.size());
        rmsnorm_reference(rows_, hidden_, x_.data(), weight_.data(), ref.data());
        // The fp32 sum of `hidden` squares is off by at most about hidden*eps relative; the
        // scaling adds a few roundings.
        const double tol = (hidden_ + 8) * FLT_EPSILON * std::max(1.0, max_abs(ref));
        return verify_result(max_abs_diff(y_, ref), tol, "rmsnorm vs double-sum rows");
    }

private:
    void run() { rmsnorm(rows_, hidden_, width_, x_.data(), weight_.data(), y_.data(), pool_); }

    int rows_, hidden_, width_, iterations_;
    ThreadPool pool_;
    std::vector<float> x_, weight_, y_;
};

class RmsNormWorkload final : public DescribedWorkload {
public:
    RmsNormWorkload()
        : DescribedWorkload(rmsnorm_description())
    {
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cuda)
            return prepare_cuda(kName, params, cuda_run_options(params), cuda_time_metrics);
        require_cpu(kName, backend);
        const CpuConfig c = cpu_config(params);
        return std::make_unique<PreparedRmsNorm>(c.rows, c.hidden, c.width, c.threads, c.iterations);
    }

    void validate(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cpu)
            cpu_config(params);
    }

private:
    struct CpuConfig {
        int rows, hidden, width, threads, iterations;
    };
    // The cpu backend's ranges, shared by prepare() and validate().
    static CpuConfig cpu_config(const nlohmann::json& params)
    {
        const auto rows = int_param(params, kName, "rows", 1, 1 << 24);
        const auto hidden = int_param(params, kName, "hidden", 1, 1 << 24);
        check_buffer(kName, static_cast<double>(rows) * hidden, "rows x hidden");
        const auto width = int_param(params, kName, "vector_width", 1, 16);
        if (!rmsnorm_supports_width(static_cast<int>(width)))
            throw WorkloadError(
                fmt::format("{}: parameter 'vector_width' must be 1, 4, 8 or 16, got {}", kName, width));
        const auto threads = int_param(params, kName, "threads", 1, 256);
        const auto iterations = int_param(params, kName, "iterations", 1, 100000);
        return {static_cast<int>(rows), static_cast<int>(hidden), static_cast<int>(width), static_cast<int>(threads),
            static_cast<int>(iterations)};
    }
};

} // namespace

std::unique_ptr<Workload> make_rmsnorm_workload()
{
    return std::make_unique<RmsNormWorkload>();
}

} // namespace kwb::cpu
