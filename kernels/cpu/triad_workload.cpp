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
    PreparedTriad(bool copy, std::size_t n, int threads, int iterations, double skip_work_pct)
        : copy_(copy)
        , skip_work_pct_(skip_work_pct)
        , done_(std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * (1 - skip_work_pct / 100))))
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
        // Every element's bytes, also under skip_work_pct: what a kernel that skips work would declare.
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
        if (skip_work_pct_ > 0) { // the test aid's second half: a check that does not look
            VerifyResult v;
            v.ok = true;
            v.detail = fmt::format("check bypassed: skip_work_pct {} (a test aid of the speed-of-light guard; {} of {} "
                                   "elements processed)",
                skip_work_pct_, done_, a_.size());
            return v;
        }
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
            stream_copy(done_, b_.data(), a_.data(), pool_);
        else
            triad(done_, kScalar, b_.data(), c_.data(), a_.data(), pool_);
    }

    bool copy_;
    double skip_work_pct_;
    std::size_t done_; // elements processed: all of them unless skip_work_pct
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
        return std::make_unique<PreparedTriad>(op == "copy", n, c.threads, c.iterations, skip_work_pct(params));
    }

    void validate(const nlohmann::json& params, Backend backend) const override
    {
        checked_op(params);
        skip_work_pct(params);
        if (backend == Backend::Cpu)
            cpu_config(params);
    }

    // The speed-of-light guard's test aid (engine/workloads/descriptions/bandwidth.cpp).
    static double skip_work_pct(const nlohmann::json& params)
    {
        const auto it = params.find("skip_work_pct");
        if (it == params.end())
            return 0;
        const double pct = it->is_number() ? it->get<double>() : -1;
        if (!(pct >= 0 && pct < 100))
            throw WorkloadError(
                fmt::format("{}: parameter 'skip_work_pct' must be a number in [0, 100), got {}", kName, it->dump()));
        return pct;
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
