// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/flops_per_byte.h"
#include "workloads/descriptions/param_helpers.h"

namespace kwb {

const WorkloadDescription& attention_decode_description()
{
    static const WorkloadDescription d {
        "attention_decode",
        "decode attention: one query token per sequence against a paged KV cache (shuffled pages), grouped-query "
        "heads, optional split-KV with a combine kernel, bf16 or fp8 e4m3 KV",
        {Backend::Cuda},
        []() -> std::vector<ParamSpec> {
            return {
                {"batch", 16, int_values({1, 16, 64}), "sequences, one query token each"},
                {"heads", 32, int_values({8, 32, 64}), "query heads"},
                {"kv_heads", 8, int_values({4, 8, 32}),
                    "KV heads; heads / kv_heads (1, 2, 4, 8) query heads share one"},
                {"head_dim", 128, int_values({64, 128}), "dimension of one head"},
                {"context", 4096, int_values({1024, 4096, 8192, 32768}), "the longest sequence's cached tokens"},
                {"length_spread", 50, int_values({0, 50, 100}),
                    "percent: context lengths drawn uniformly from [context * (1 - spread/100), context] by seed"},
                {"page_size", 16, int_values({16, 32, 64, 128}), "tokens per KV page"},
                {"page_order", "shuffled", {"shuffled", "ordered"},
                    "shuffled: every sequence's pages scattered over the pool by seed (a paged cache in service); "
                    "ordered: each sequence's pages consecutive and in order (a contiguous cache, as torch's SDPA "
                    "reads)"},
                {"splits", 1, int_values({0, 1, 4, 16, 32}),
                    "token ranges per sequence, each its own thread block (1 = no split-KV; else a combine kernel "
                    "merges them; 0 = auto, about two blocks per SM)"},
                {"stages", 3, int_values({2, 3, 4, 6}), "cp.async shared-memory ring depth (64-token tiles), 2-6"},
                {"pdl", 1, int_values({0, 1}),
                    "1: programmatic dependent launch (each kernel is scheduled while the previous one drains); 0: "
                    "plain launches"},
                {"early", 0, int_values({0, 1}),
                    "1: each block looks its pages up and puts its KV tiles in flight before it waits for the previous "
                    "kernel (pdl), re-reading only each sequence's newest K/V row after the wait: the contract of "
                    "tiny_llm's decode step, where the QKV projection before the attention writes only that row"},
                {"kv_dtype", "bf16", {"bf16", "fp8"}, "KV cache element: bf16, or fp8 e4m3 with a per-KV-head scale"},
                {"impl", "simt", {"simt", "mma"},
                    "simt: fp32 CUDA-core score and P V passes; mma: m16n8k16 tensor cores, one barrier per tile (bf16 "
                    "KV only)"},
                {"seed", 1, int_values({1, 2, 3}), "draws the context lengths and the page shuffle"},
                iterations_param(10, {1, 10, 100}),
                cache_param(),
                fault_param(),
            };
        }(),
        []() -> std::vector<MetricSpec> {
            return {time_metric("one decode step of the batch (main kernel, plus the combine kernel with splits)"),
                {"gbs", "GB/s", Direction::Higher,
                    "K and V bytes of every sequence's context (read once) / time_ms; the query and output are not "
                    "counted"},
                {"tflops", "TFLOP/s", Direction::Higher,
                    "4 x cached tokens x heads x head_dim FLOPs (each query head's score q . k and P V update, "
                    "head_dim multiply-adds each, per cached token) / time_ms; the softmax and the combine kernel "
                    "are not counted"}};
        }(),
        {},
        false,
    };
    return d;
}

// The tokens and head_dim cancel in the two counts the metrics above declare, leaving
// 2 x (heads / kv_heads) / element bytes.
std::optional<double> attention_decode_flops_per_byte(const nlohmann::json& p)
{
    const double heads = p.value("heads", 0.0), kv_heads = p.value("kv_heads", 0.0);
    const double element_bytes = p.value("kv_dtype", std::string("bf16")) == "fp8" ? 1 : 2;
    if (heads <= 0 || kv_heads <= 0)
        return std::nullopt;
    return 2 * heads / (kv_heads * element_bytes);
}

} // namespace kwb
