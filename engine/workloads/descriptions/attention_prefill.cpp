// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/param_helpers.h"

namespace kwb {

const WorkloadDescription& attention_prefill_description()
{
    static const WorkloadDescription d {
        "attention_prefill",
        "causal self-attention prefill, flash style (tiled, online softmax); cpu: fp32, one sequence, one task per "
        "head x query tile; cuda: bf16 mma.sync tensor cores, a packed varlen batch, grouped-query heads",
        {Backend::Cpu, Backend::Cuda},
        []() -> std::vector<ParamSpec> {
            const auto cpu = [](ParamSpec p) { return only_on(Backend::Cpu, std::move(p)); };
            const auto cuda = [](ParamSpec p) { return only_on(Backend::Cuda, std::move(p)); };
            ParamSpec seq {"seq_len", 512, int_values({128, 256, 512, 1024, 4096}),
                "tokens in the prompt (cuda: the longest sequence of the batch)"};
            seq.cuda_default = 4096;
            ParamSpec dim {"head_dim", 64, int_values({32, 64, 128}), "dimension of one head (cuda: 64 or 128)"};
            dim.cuda_default = 128;
            ParamSpec heads {"heads", 8, int_values({1, 4, 8, 16, 32}), "attention (query) heads"};
            heads.cuda_default = 32;
            auto iterations = iterations_param(3, {1, 3, 10});
            iterations.cuda_default = 10;
            return {
                seq,
                dim,
                heads,
                cpu({"tile_q", 64, int_values({16, 32, 64, 128}),
                    "queries per tile (rows that share one pass over K/V)"}),
                cpu({"tile_k", 64, int_values({16, 32, 64, 128}), "keys per tile (one online-softmax step)"}),
                cpu(threads_param()),
                iterations,
                cuda({"batch", 4, int_values({1, 4, 8}), "sequences packed into one varlen batch"}),
                cuda({"kv_heads", 32, int_values({8, 32}), "key/value heads (grouped-query attention); divides heads"}),
                cuda({"length_spread", 0, int_values({0, 50, 100}),
                    "percent: sequence lengths drawn uniformly from [seq_len * (1 - spread/100), seq_len] by seed"}),
                cuda({"block_m", 128, int_values({64, 128}), "query rows per thread block"}),
                cuda({"block_n", 64, int_values({32, 64, 128}), "keys per K/V tile (one online-softmax step)"}),
                cuda({"stages", 2, int_values({2, 3}), "cp.async K/V ring depth"}),
                cuda({"warps", 8, int_values({4, 8}), "warps per block (block_m / warps: 16 or 32 query rows each)"}),
                cuda({"seed", 1, int_values({1, 2, 3}), "draws the sequence lengths"}),
                cuda(cache_param()),
                cuda(fault_param()),
            };
        }(),
        []() -> std::vector<MetricSpec> {
            return {time_metric("one prefill of all heads"),
                {"gflops", "GFLOP/s", Direction::Higher,
                    "4 * heads * head_dim * sum over sequences of len*(len+1)/2 / time_ms (causal half only)"},
                {"tflops", "TFLOP/s", Direction::Higher, "the same in TFLOP/s"}};
        }(),
        // The CPU prefill's old name: studies that name it still load.
        {"attention"},
        false,
    };
    return d;
}

} // namespace kwb
