// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's description of `attention_decode`, a cuda-only workload: its kernels, reference
// and parameter checks live in the GPU backend plugin (kernels/cuda/attention_decode_*).
#include "cpu/cpu_workloads.h"
#include "cpu/workload_util.h"
#include "workloads/cuda_workload.h"
#include "workloads/descriptions/builtin_descriptions.h"

namespace kwb::cpu {
namespace {

constexpr const char* kName = "attention_decode";

class AttentionDecodeWorkload final : public DescribedWorkload {
public:
    AttentionDecodeWorkload()
        : DescribedWorkload(attention_decode_description())
    {
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        if (backend != Backend::Cuda)
            throw WorkloadError(std::string(kName) + ": runs on the cuda backend only");
        // gbs from the K and V bytes, tflops from the FLOPs the plugin declares per launch: for every
        // query head and cached token a score (q . k) and a P V update, head_dim multiply-adds each.
        return prepare_cuda(kName, params, cuda_run_options(params), cuda_time_metrics);
    }
    void validate(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cuda)
            validate_cuda_config(kName, params); // the plugin owns the ranges
    }
};

} // namespace

std::unique_ptr<Workload> make_attention_decode_workload()
{
    return std::make_unique<AttentionDecodeWorkload>();
}

} // namespace kwb::cpu
