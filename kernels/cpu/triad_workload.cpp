// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/cpu_workloads.h"
#include "cpu/triad.h"
#include "cpu/workload_util.h"
#include "workloads/cuda_workload.h"

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

class TriadWorkload final : public Workload {
public:
    std::string name() const override { return kName; }
    std::string description() const override
    {
        return "memory bandwidth: STREAM copy a = b or triad a = b + 3*c over fp32 arrays of size_mb MiB each; "
               "on the GPU the kernel that measures the device's memory ceiling";
    }
    std::vector<Backend> backends() const override { return {Backend::Cpu, Backend::Cuda}; }
    // It absorbed the CPU `triad` workload; studies that name it still load.
    std::vector<std::string> aliases() const override { return {"triad"}; }
    std::vector<ParamSpec> params() const override
    {
        ParamSpec size {"size_mb", 64, int_values({1, 4, 16, 64, 128}),
            "MiB per array; past the last-level cache (L2 on a GPU) it measures DRAM bandwidth"};
        size.cuda_default = 1024;
        auto iterations = iterations_param(10, {1, 10, 50});
        iterations.cuda_default = 10;
        return {
            {"op", "triad", {"triad", "copy"},
                "triad: a = b + 3*c (two reads, one write); copy: a = b (one read, one write)"},
            size,
            only_on(Backend::Cpu, threads_param()),
            iterations,
            only_on(Backend::Cuda, {"vector_width", 4, int_values({1, 2, 4, 8}), "fp32 elements per thread access"}),
            only_on(Backend::Cuda, {"block_threads", 256, int_values({128, 256, 512, 1024}), "threads per block"}),
            cache_param(),
        };
    }
    std::vector<MetricSpec> metrics() const override
    {
        return {time_metric("one pass over the arrays"),
            {"gbs", "GB/s", Direction::Higher,
                "STREAM bytes (copy 2, triad 3 times size_mb MiB: reads plus the write; write-allocate not counted) "
                "/ time_ms"}};
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
