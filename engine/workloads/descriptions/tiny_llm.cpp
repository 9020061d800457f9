// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/param_helpers.h"

namespace kwb {

const WorkloadDescription& tiny_llm_description()
{
    static const WorkloadDescription d {
        "tiny_llm",
        "small Llama-style decoder (RMSNorm, GQA + RoPE, SwiGLU; seeded random weights) serving requests one after "
        "another or arriving as a Poisson process into a continuously batched decode loop: prefill then greedy "
        "decoding with a KV cache (or an fp8 e4m3 one); cpu: fp32; cuda: bf16, flash prefill, paged decode attention, "
        "GEMV or cuBLASLt linear layers (a prefill's: cuBLASLt or the plugin's own GEMM), decode step optionally in a "
        "CUDA graph",
        {Backend::Cpu, Backend::Cuda},
        []() -> std::vector<ParamSpec> {
            const auto cuda = [](ParamSpec p) { return only_on(Backend::Cuda, std::move(p)); };
            return {
                with_cuda_default({"layers", 2, int_values({1, 2, 4, 8, 16, 32}), "decoder layers"}, 16),
                with_cuda_default({"hidden", 256, int_values({128, 256, 512, 1024, 2048, 4096}),
                                      "model width; a multiple of heads (cuda: hidden / heads is 64 or 128)"},
                    2048),
                with_cuda_default(
                    {"heads", 8, int_values({2, 4, 8, 16, 32}), "query heads; hidden / heads must be even (RoPE)"}, 16),
                with_cuda_default({"kv_heads", 2, int_values({1, 2, 4, 8}),
                                      "key/value heads (grouped-query attention); divides heads (cuda: heads / "
                                      "kv_heads is 1, 2, 4 or 8)"},
                    4),
                with_cuda_default({"ffn", 768, int_values({256, 768, 2048, 5632, 11008}), "SwiGLU inner width"}, 5632),
                with_cuda_default(
                    {"vocab", 4096, int_values({1024, 4096, 32000}), "vocabulary (embedding and LM head rows)"}, 32000),
                with_cuda_default({"prompt_len", 32, int_values({8, 32, 128, 256, 512, 2048}),
                                      "tokens in each prompt (the longest, with length_spread)"},
                    512),
                with_cuda_default(
                    {"gen_tokens", 32, int_values({2, 8, 16, 32, 64, 128}),
                        "tokens generated per sequence, the first included (the most, with length_spread)"},
                    64),
                with_cuda_default(
                    {"batch", 4, int_values({1, 2, 4, 8}), "sequences of one request, served together"}, 1),
                with_cuda_default({"requests", 1, int_values({1, 4, 8, 16}), "requests per repetition"}, 8),
                {"arrivals", "sequential", {"sequential", "poisson"},
                    "sequential: each request starts when the previous one has finished (TTFT from its start); "
                    "poisson: requests arrive at `rate` per second (the first at 0) into a continuously batched decode "
                    "loop, each step serving every active sequence; an arrival joins at the first step boundary after "
                    "it, after its prefill (TTFT from its arrival, queueing included); finished sequences leave and "
                    "free their KV"},
                {"rate", 50, int_values({5, 20, 50, 200}), "requests per second (arrivals poisson)"},
                {"max_batch", 8, int_values({1, 2, 4, 8, 16}),
                    "sequences a decode step serves at most (arrivals poisson); a request of `batch` sequences waits "
                    "for that many free rows (cuda with decode_gemm gemv: at most 8)"},
                with_cuda_default({"length_spread", 0, int_values({0, 50, 100}),
                                      "percent: each request's prompt and output lengths drawn uniformly from [len * "
                                      "(1 - spread/100), len] by seed"},
                    50),
                {"seed", 42, int_values({1, 42}), "seed of the weights, the prompt tokens and the lengths"},
                only_on(Backend::Cpu, threads_param()),
                cuda({"page_size", 16, int_values({16, 32, 64, 128}), "tokens per KV-cache page (pages shuffled)"}),
                cuda({"splits", 0, int_values({0, 1, 4, 16}),
                    "split-KV of the decode attention (1 = none; 0 = about one block per SM: SMs / (batch x kv_heads), "
                    "at most one split per 64-token tile of prompt_len + gen_tokens)"}),
                cuda({"cuda_graph", "off", {"off", "on"},
                    "decode step launched kernel by kernel (off) or as one CUDA graph (on)"}),
                {"kv_dtype", "bf16", {"bf16", "fp8"},
                    "KV cache element: the model's own (cuda: bf16; cpu: fp32), or fp8 e4m3 with a per-(layer, K or V, "
                    "KV head) scale calibrated once from request 0's prefill (largest |value| x 4 / 448), rounded to "
                    "nearest even and saturating at 448 on both backends (cpu/kv_fp8.h); decode steps read the fp8 "
                    "cache, a prefill attends its own K, V"},
                cuda({"weights", "bf16", {"bf16", "fp8"},
                    "linear weights a decode step reads: bf16, or fp8 e4m3 (weight-only quantised: every output row "
                    "of every projection and of the LM head as e4m3 codes of w / scale with one fp32 scale, its "
                    "largest |w| / 448, quantised once at prepare from the bf16 weights, cpu/weight_fp8.h) "
                    "dequantised inside the GEMV, whose 16-byte loads then carry 16 weights, so step_mb counts a "
                    "byte a weight plus the scales; the embedding stays bf16, a prefill reads the dequantised bf16 "
                    "copy (the same model); needs decode_gemm gemv, hidden and ffn multiples of 16; its check adds "
                    "the accuracy guard against the bf16 model (kernels/cuda/README.md); cpu: refused (its "
                    "decoder is fp32 only)"}),
                cuda({"decode_gemm", "gemv", {"gemv", "cublaslt"},
                    "linear layers of a decode step: the plugin's GEMV (batch <= 8) or cuBLASLt's GEMM"}),
                cuda({"prefill_gemm", "cublaslt", {"cublaslt", "wgmma", "tiled"},
                    "linear layers of a prefill (TTFT): cuBLASLt, or the plugin's own GEMM on every prefill linear, LM "
                    "head included: wgmma (TMA + wgmma, Hopper only; block 128x128x64, 4 stages) or tiled (mma.sync; "
                    "block 128x128x64, 3 stages, 4 warps); an own GEMM keeps a transposed bf16 copy of every linear "
                    "weight, made once at prepare and counted in peak_mem_mib (every weight but the embedding, again); "
                    "decode steps keep decode_gemm (GEMV, or cuBLASLt)"}),
                cuda({"gemv_blocks_per_sm", 0, int_values({0, 2, 3}),
                    "blocks of a GEMV decode step's GEMV per SM, at most (0: as many as fit; fewer leave room for the "
                    "next kernel's blocks to start under pdl)"}),
                cuda({"early_attention", "on", {"off", "on"},
                    "the attention of a GEMV decode step looks its pages up and puts its KV tiles in flight before it "
                    "waits for the QKV projection under pdl (only the newest token's K/V row and q are read after the "
                    "wait); off: the whole attention waits"}),
                cuda({"attention_impl", "auto", {"auto", "simt", "mma"},
                    "decode attention kernel of the steps: fp32 CUDA-core score and P V passes (simt), or m16n8k16 "
                    "tensor cores with one barrier per tile (mma, bf16 KV only); auto: mma with a bf16 cache, simt "
                    "with fp8"}),
                cuda({"gemv_grid", "balanced", {"wave", "balanced"},
                    "blocks of a GEMV decode step's GEMV: a full wave (each warp walks units of rows until none is "
                    "left, so the last round may be partly idle), or the fewest blocks that walk the same number of "
                    "rounds with every warp busy in each, leaving the other slots to the next kernel"}),
                cuda({"pdl", "on", {"off", "on"},
                    "programmatic dependent launch in a GEMV decode step: each kernel may start while the previous one "
                    "drains, its weight loads in flight before it waits for that kernel's results (off: each kernel "
                    "starts after the previous one has finished)"}),
                cuda(fault_param()),
            };
        }(),
        []() -> std::vector<MetricSpec> {
            return {
                {"ttft_ms", "ms", Direction::Lower,
                    "time to first token, mean over the repetition's requests: prefill of the request's batch plus "
                    "choosing each sequence's first token, from the request's start (sequential) or its arrival "
                    "(poisson: queueing included); each request's is an iteration value"},
                {"ttft_p50_ms", "ms", Direction::Lower, "median TTFT over the repetition's requests"},
                {"ttft_p99_ms", "ms", Direction::Lower, "99th percentile TTFT over the requests (interpolated)"},
                {"itl_p50_ms", "ms", Direction::Lower,
                    "median inter-token latency: the gap between consecutive tokens of a request (sequential: one "
                    "decode step; poisson: a step of the continuous batch, plus any prefill of a joining request "
                    "before it), over every request's gaps"},
                {"itl_p99_ms", "ms", Direction::Lower, "99th percentile of the same steps (interpolated)"},
                {"tpot_ms", "ms", Direction::Lower,
                    "time per output token after the first: a request's decode time / (its tokens - 1), mean over "
                    "requests"},
                {"tok_s", "tok/s", Direction::Higher,
                    "generated tokens (batch * sum of gen_tokens) / wall time of the repetition, prefills (and with "
                    "poisson arrivals idle waits) included"},
                {"step_mb", "MB", Direction::Lower,
                    "bytes the mean decode step reads (cpu/decode_traffic.h): every linear weight once (weights fp8: a "
                    "byte each plus a 4-byte scale per output row) plus the K and "
                    "V of each active sequence's context, over the steps the repetition ran (poisson: as the "
                    "continuous batch took them); the ITL bound is step_mb / the copy ceiling"},
                {"step_gbs", "GB/s", Direction::Higher, "step_mb / itl_p50_ms: the decode step's achieved bandwidth"},
                {"peak_mem_mib", "MiB", Direction::Lower,
                    "memory the workload holds: weights, KV cache, activations (cuda: device memory it allocated, "
                    "cuBLASLt workspace included; cpu: host memory)"},
            };
        }(),
        // The CPU decoder's old name: studies that name it still load.
        {"decoder"},
        false,
    };
    return d;
}

} // namespace kwb
