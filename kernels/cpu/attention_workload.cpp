// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/attention.h"
#include "cpu/cpu_workloads.h"
#include "cpu/workload_util.h"
#include "workloads/cuda_workload.h"
#include "workloads/descriptions/builtin_descriptions.h"

#include <cfloat>
#include <cstddef>

namespace kwb::cpu {
namespace {

constexpr const char* kName = "attention_prefill";

class PreparedAttention final : public PreparedWorkload {
public:
    PreparedAttention(AttentionShape shape, int tile_q, int tile_k, int threads, int iterations)
        : shape_(shape)
        , iterations_(iterations)
        , pool_(threads)
        , flash_(tile_q, tile_k, shape.head_dim, pool_)
        , q_(static_cast<std::size_t>(shape.heads) * shape.seq * shape.head_dim)
        , k_(q_.size())
        , v_(q_.size())
        , o_(q_.size())
    {
        // Q and K span [-2, 2) so scores reach a few units: the softmax is peaked enough that
        // the running-max rescale matters, not a near-uniform average.
        fill_uniform(q_, 11, -2.0f, 2.0f);
        fill_uniform(k_, 12, -2.0f, 2.0f);
        fill_uniform(v_, 13);
    }

    RepetitionResult run_once() override
    {
        RepetitionResult r;
        r.iterations
            = time_iterations(iterations_, [&] { flash_.run(shape_, q_.data(), k_.data(), v_.data(), o_.data()); });
        const double ms = mean(r.iterations);
        // Two matrix products (QK^T and PV) over the causal half: 4 * d flops per (query, key) pair.
        const double pairs = static_cast<double>(shape_.seq) * (shape_.seq + 1) / 2.0;
        r.metrics["time_ms"] = ms;
        r.metrics["gflops"] = 4.0 * shape_.heads * shape_.head_dim * pairs / (ms * 1e6);
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
        flash_.run(shape_, q_.data(), k_.data(), v_.data(), o_.data());
        std::vector<float> ref(o_.size());
        attention_reference(shape_, q_.data(), k_.data(), v_.data(), ref.data());
        // Outputs are convex combinations of V in [-1, 1]; fp32 error grows with the length of
        // the sums involved (head_dim terms per score, up to seq terms per output).
        const double tol = 4.0 * (shape_.head_dim + shape_.seq) * FLT_EPSILON;
        return verify_result(max_abs_diff(o_, ref), tol, "flash attention vs explicit softmax");
    }

private:
    AttentionShape shape_;
    int iterations_;
    ThreadPool pool_;
    FlashAttention flash_;
    std::vector<float> q_, k_, v_, o_;
};

class AttentionWorkload final : public DescribedWorkload {
public:
    AttentionWorkload()
        : DescribedWorkload(attention_prefill_description())
    {
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cuda)
            return prepare_cuda(kName, params, cuda_run_options(params), [](const nlohmann::json& run, auto& metrics) {
                cuda_time_metrics(run, metrics);
                metrics.erase("gbs");
                if (const auto t = metrics.find("tflops"); t != metrics.end())
                    metrics["gflops"] = t->second * 1e3;
            });
        require_cpu(kName, backend);
        return checked(params);
    }

    void validate(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cpu)
            checked(params, false);
        else
            validate_cuda_config(kName, params); // the plugin owns the cuda ranges
    }

private:
    // The ranges of prepare() and validate(); prepares only when `make` is set.
    static std::unique_ptr<PreparedWorkload> checked(const nlohmann::json& params, bool make = true)
    {
        AttentionShape shape;
        shape.seq = static_cast<int>(int_param(params, kName, "seq_len", 1, 65536));
        shape.head_dim = static_cast<int>(int_param(params, kName, "head_dim", 1, 1024));
        shape.heads = static_cast<int>(int_param(params, kName, "heads", 1, 256));
        check_buffer(
            kName, static_cast<double>(shape.heads) * shape.seq * shape.head_dim, "heads x seq_len x head_dim");
        const auto tile_q = int_param(params, kName, "tile_q", 1, 4096);
        const auto tile_k = int_param(params, kName, "tile_k", 1, 4096);
        check_buffer(kName, static_cast<double>(tile_q) * tile_k, "tile_q x tile_k");
        const auto threads = int_param(params, kName, "threads", 1, 256);
        const auto iterations = int_param(params, kName, "iterations", 1, 100000);
        if (!make)
            return nullptr;
        return std::make_unique<PreparedAttention>(shape, static_cast<int>(tile_q), static_cast<int>(tile_k),
            static_cast<int>(threads), static_cast<int>(iterations));
    }
};

} // namespace

std::unique_ptr<Workload> make_attention_workload()
{
    return std::make_unique<AttentionWorkload>();
}

} // namespace kwb::cpu
