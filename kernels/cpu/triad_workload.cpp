// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/cpu_workloads.h"
#include "cpu/triad.h"
#include "cpu/workload_util.h"
#include "workloads/cuda_workload.h"
#include "workloads/descriptions/builtin_descriptions.h"

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <fmt/format.h>

namespace kwb::cpu {
namespace {

constexpr const char* kName = "bandwidth";
constexpr float kScalar = 3.0f; // STREAM's scalar

class PreparedTriad final : public PreparedWorkload {
public:
    PreparedTriad(bool copy, std::size_t n, int threads, int iterations)
        : copy_(copy)
        , iterations_(iterations)
        , pool_(threads)
        , a_(n)
        , b_(n)
        , c_(n)
    {
        fill_uniform(b_, 31);
        fill_uniform(c_, 32);
        // Touch the output once so the first timed iteration does not pay its page faults.
        std::fill(a_.begin(), a_.end(), 0.0f);
    }

    RepetitionResult run_once() override
    {
        RepetitionResult r;
        r.iterations = time_iterations(iterations_, [&] { run(); });
        const double ms = mean(r.iterations);
        r.metrics["time_ms"] = ms;
        r.metrics["gbs"] = (copy_ ? 2.0 : 3.0) * sizeof(float) * static_cast<double>(a_.size()) / (ms * 1e6);
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
        if (copy_)
            return verify_result(max_abs_diff(a_, b_), 0.0, "copy vs its source");
        std::vector<float> ref(a_.size());
        triad_reference(ref.size(), kScalar, b_.data(), c_.data(), ref.data());
        // Same two operations per element; only a fused multiply-add may round differently.
        return verify_result(
            max_abs_diff(a_, ref), 2 * FLT_EPSILON * std::max(1.0, max_abs(ref)), "triad vs scalar loop");
    }

private:
    void run()
    {
        if (copy_)
            stream_copy(a_.size(), b_.data(), a_.data(), pool_);
        else
            triad(a_.size(), kScalar, b_.data(), c_.data(), a_.data(), pool_);
    }

    bool copy_;
    int iterations_;
    ThreadPool pool_;
    std::vector<float> a_, b_, c_;
};

class TriadWorkload final : public DescribedWorkload {
public:
    TriadWorkload()
        : DescribedWorkload(bandwidth_description())
    {
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        const auto op = checked_op(params);
        if (backend == Backend::Cuda) {
            // The plugin names the array size bytes_mib.
            auto plugin_params = params;
            plugin_params["bytes_mib"] = params.value("size_mb", 1024);
            return prepare_cuda(kName, plugin_params, cuda_run_options(params), cuda_time_metrics);
        }
        require_cpu(kName, backend);
        const CpuConfig c = cpu_config(params);
        const auto n = static_cast<std::size_t>(c.size_mb) * 1024 * 1024 / sizeof(float);
        return std::make_unique<PreparedTriad>(op == "copy", n, c.threads, c.iterations);
    }

    void validate(const nlohmann::json& params, Backend backend) const override
    {
        checked_op(params);
        if (backend == Backend::Cpu)
            cpu_config(params);
    }

private:
    static std::string checked_op(const nlohmann::json& params)
    {
        const auto op = params.value("op", std::string("triad"));
        if (op != "triad" && op != "copy")
            throw WorkloadError(fmt::format("{}: parameter 'op' must be triad or copy, got \"{}\"", kName, op));
        return op;
    }
    struct CpuConfig {
        int size_mb, threads, iterations;
    };
    // The cpu backend's ranges, shared by prepare() and validate().
    static CpuConfig cpu_config(const nlohmann::json& params)
    {
        return {static_cast<int>(int_param(params, kName, "size_mb", 1, 1024)),
            static_cast<int>(int_param(params, kName, "threads", 1, 256)),
            static_cast<int>(int_param(params, kName, "iterations", 1, 100000))};
    }
};

} // namespace

std::unique_ptr<Workload> make_triad_workload()
{
    return std::make_unique<TriadWorkload>();
}

} // namespace kwb::cpu
