// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/cpu_workloads.h"
#include "cpu/triad.h"
#include "cpu/workload_util.h"

#include <algorithm>
#include <cfloat>
#include <cstddef>

namespace kwb::cpu {
namespace {

constexpr const char* kName = "triad";
constexpr float kScalar = 3.0f; // STREAM's scalar

class PreparedTriad final : public PreparedWorkload {
public:
    PreparedTriad(std::size_t n, int threads, int iterations)
        : iterations_(iterations), pool_(threads), a_(n), b_(n), c_(n)
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
        r.metrics["gbs"] = 3.0 * sizeof(float) * static_cast<double>(a_.size()) / (ms * 1e6);
        return r;
    }

    VerifyResult verify() override
    {
        run();
        std::vector<float> ref(a_.size());
        triad_reference(ref.size(), kScalar, b_.data(), c_.data(), ref.data());
        // Same two operations per element; only a fused multiply-add may round differently.
        return verify_result(max_abs_diff(a_, ref), 2 * FLT_EPSILON * std::max(1.0, max_abs(ref)), "triad vs scalar loop");
    }

private:
    void run() { triad(a_.size(), kScalar, b_.data(), c_.data(), a_.data(), pool_); }

    int iterations_;
    ThreadPool pool_;
    std::vector<float> a_, b_, c_;
};

class TriadWorkload final : public Workload {
public:
    std::string name() const override { return kName; }
    std::string description() const override
    {
        return "memory bandwidth: STREAM triad a = b + 3*c over three fp32 arrays of size_mb MiB each";
    }
    std::vector<Backend> backends() const override { return {Backend::Cpu}; }
    std::vector<ParamSpec> params() const override
    {
        return {
            {"size_mb", 64, int_values({1, 4, 16, 64, 128}),
             "MiB per array (three arrays); past the last-level cache it measures DRAM bandwidth"},
            threads_param(),
            iterations_param(10, {1, 10, 50}),
        };
    }
    std::vector<MetricSpec> metrics() const override
    {
        return {time_metric("one pass over the arrays"),
                {"gbs", "GB/s", Direction::Higher,
                 "STREAM bytes (3 * size_mb MiB: two reads, one write; write-allocate not counted) / time_ms"}};
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        require_cpu(kName, backend);
        const auto size_mb = int_param(params, kName, "size_mb", 1, 1024);
        const auto threads = int_param(params, kName, "threads", 1, 256);
        const auto iterations = int_param(params, kName, "iterations", 1, 100000);
        const auto n = static_cast<std::size_t>(size_mb) * 1024 * 1024 / sizeof(float);
        return std::make_unique<PreparedTriad>(n, static_cast<int>(threads), static_cast<int>(iterations));
    }
};

} // namespace

std::unique_ptr<Workload> make_triad_workload()
{
    return std::make_unique<TriadWorkload>();
}

} // namespace kwb::cpu
