// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm's correctness check on the GPU: the serving path's logits over a short prefix and a few
// greedy steps against the fp32 reference forward (tiny_llm_model.cu).
#include "tiny_llm_engine.h"

#include <algorithm>
#include <cmath>

namespace kwb::cuda::tllm {
namespace {
constexpr int kOwnGemmPrefix = 160;

// The device's greedy rule (argmax_merge): the first index of the largest value, NaNs never chosen.
int first_argmax(const float* v, std::size_t n, int* ties = nullptr)
{
    float bv = -INFINITY;
    int bi = 0x7fffffff;
    for (std::size_t i = 0; i < n; ++i)
        if (v[i] > bv || (v[i] == bv && static_cast<int>(i) < bi))
            bv = v[i], bi = static_cast<int>(i);
    if (ties)
        *ties = static_cast<int>(std::count(v, v + n, bv));
    return bi;
}
} // namespace

// The fused step's LM head (its argmax across blocks) on rows whose normed input is one-hot, at
// column c_r: each logit is then one exact product, lm_head[v][c_r] * xn, so the bf16 weights'
// repeated values make the largest logit of a row tied at several indices across the blocks.
// Launched twice (the second after the first's count reset), next_ poisoned before each: both
// must give the first index of the largest stored logit.
nlohmann::json TinyLlm::argmax_probe(cudaStream_t stream)
{
    const auto& m = cfg_.m;
    const int rows = cfg_.sched.batch;
    const std::size_t vocab = static_cast<std::size_t>(m.vocab), h = static_cast<std::size_t>(m.hidden);
    std::vector<float> x(rows * h, 0.f);
    for (int r = 0; r < rows; ++r)
        x[r * h + (1 + 31 * static_cast<std::size_t>(r)) % h] = 1.f;
    KWB_CUDA(cudaMemcpyAsync(x_.as<void>(), x.data(), x.size() * 4, cudaMemcpyHostToDevice, stream));
    std::vector<int> next(2 * static_cast<std::size_t>(rows));
    for (int launch = 0; launch < 2; ++launch) {
        KWB_CUDA(cudaMemsetAsync(next_.as<void>(), 0xff, next_.bytes(), stream));
        lm_head_argmax(rows, stream);
        KWB_CUDA(
            cudaMemcpyAsync(next.data() + launch * rows, next_.as<void>(), rows * 4, cudaMemcpyDeviceToHost, stream));
    }
    std::vector<float> logits(rows * vocab);
    KWB_CUDA(cudaMemcpyAsync(logits.data(), logits_.as<void>(), logits.size() * 4, cudaMemcpyDeviceToHost, stream));
    KWB_CUDA(cudaStreamSynchronize(stream));
    int tied = 0, mismatches = 0;
    for (int r = 0; r < rows; ++r) {
        int ties = 0;
        const int best = first_argmax(logits.data() + r * vocab, vocab, &ties);
        tied += ties > 1;
        mismatches += (next[r] != best) + (next[rows + r] != best);
    }
    return {{"rows", rows}, {"tied_rows", tied}, {"mismatches", mismatches}};
}

nlohmann::json TinyLlm::verify(cudaStream_t stream)
{
    // A short prefix of request 0's prompts, then greedy steps, each sequence's logits kept; the
    // reference runs the first and the last sequence through the same tokens in fp32.
    const auto& m = cfg_.m;
    const int batch = cfg_.sched.batch;
    const auto& r0 = requests_.front();
    // An own prefill GEMM (prefill_gemm wgmma | tiled) gets a longer prefix, so at the tests'
    // prompts its rows span several 128-row tiles, the last one partly.
    const int prefix = std::min(r0.prompt_len, own_gemm_ ? kOwnGemmPrefix : 8);
    const int steps = std::min(4, cfg_.sched.gen_tokens - 1);
    std::vector<int> tokens, cu;
    for (const auto& p : r0.prompts)
        tokens.insert(tokens.end(), p.begin(), p.begin() + prefix);
    for (int b = 0; b <= batch; ++b)
        cu.push_back(b * prefix);
    DeviceBuffer tok(tokens.size() * 4);
    int* cu_check = cu_.as<int>() + requests_.size() * (batch + 1);
    KWB_CUDA(cudaMemcpyAsync(tok.as<void>(), tokens.data(), tok.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(cu_check, cu.data(), cu.size() * 4, cudaMemcpyHostToDevice, stream));
    const std::size_t vocab = static_cast<std::size_t>(m.vocab);
    std::vector<float> logits(static_cast<std::size_t>(steps + 1) * batch * vocab); // [step][b][vocab]
    std::vector<int> chosen(static_cast<std::size_t>(steps + 1) * batch);
    // Rows 0..batch-1 take their pages as first built (continuous batching may have moved them).
    KWB_CUDA(
        cudaMemcpyAsync(table_.as<void>(), table_host_.data(), table_host_.size() * 4, cudaMemcpyHostToDevice, stream));
    poison(logits_, stream);
    for (int s = 0; s <= steps; ++s) {
        if (s == 0)
            prefill(tok.as<int>(), prefix, cu_check, 0, stream);
        else
            step(batch, stream);
        if (cfg_.wrong && s == 0) // the correctness gate's test hook: sequence 0's first logits zeroed
            KWB_CUDA(cudaMemsetAsync(logits_.as<void>(), 0, vocab * 4, stream));
        KWB_CUDA(cudaMemcpyAsync(
            logits.data() + s * batch * vocab, logits_.as<void>(), batch * vocab * 4, cudaMemcpyDeviceToHost, stream));
        KWB_CUDA(
            cudaMemcpyAsync(chosen.data() + s * batch, next_.as<void>(), batch * 4, cudaMemcpyDeviceToHost, stream));
    }
    KWB_CUDA(cudaStreamSynchronize(stream));

    double max_err = 0, tol = 0;
    std::vector<float> probes;
    int greedy_checked = 0, greedy_flips = 0, positions = 0;
    // fp8: the reference rounds every K and V to e4m3 with the same scales for the decode steps
    // (the prefill attends bf16 K, V on both sides). The paths still differ by bf16 roundings δ
    // before the e4m3 rounding, which then lands on different grid points (spacing s = 2^-3
    // relative) with probability δ / s: the K, V differences grow from δ to sqrt(δ s) RMS,
    // about 3.5x for δ = 2^-6.5, so the logits' tolerance is 3x bf16's.
    const double tol_factor = cfg_.fp8 ? 3.0 : 1.0;
    Fp8Cache fp8 {kv_scale_host_, prefix};
    std::vector<int> checked_seqs {0};
    if (batch > 1)
        checked_seqs.push_back(batch - 1);
    for (int b : checked_seqs) {
        std::vector<int> seq(tokens.begin() + static_cast<std::ptrdiff_t>(b) * prefix,
            tokens.begin() + static_cast<std::ptrdiff_t>(b + 1) * prefix);
        for (int s = 0; s < steps; ++s)
            seq.push_back(chosen[static_cast<std::size_t>(s) * batch + b]);
        const auto ref = reference_logits(
            m, seq, prefix - 1, stream, b == 0 ? &probes : nullptr, cfg_.fp8 ? &fp8 : nullptr, cfg_.fp8_weights);
        // bf16 weights and GEMM inputs: each rounding is 2^-9 relative and random in sign, so a
        // logit's error grows with the square root of the roundings it passes (two per layer in
        // the residual stream): 0.04 of the logits' RMS per sqrt(2 layers + 1).
        double ss = 0;
        for (float v : ref)
            ss += static_cast<double>(v) * v;
        const double rms = std::sqrt(ss / static_cast<double>(ref.size()));
        tol = std::max(tol, tol_factor * 0.04 * std::sqrt(2.0 * m.layers + 1) * std::max(1.0, rms));
        for (int s = 0; s <= steps; ++s) {
            const float* gpu = logits.data() + (static_cast<std::size_t>(s) * batch + b) * vocab;
            const float* cpu = ref.data() + static_cast<std::size_t>(s) * vocab;
            int best = 0, second = -1;
            for (std::size_t i = 0; i < vocab; ++i) {
                max_err = std::max(max_err, std::isnan(gpu[i]) ? INFINITY : std::abs(double(gpu[i]) - cpu[i]));
                if (cpu[i] > cpu[best])
                    second = best, best = static_cast<int>(i);
                else if (static_cast<int>(i) != best && (second < 0 || cpu[i] > cpu[second]))
                    second = static_cast<int>(i);
            }
            ++positions;
            // Within the tolerance a flip needs a margin under twice it.
            if (second >= 0 && cpu[best] - cpu[second] > 2 * tol) {
                ++greedy_checked;
                if (chosen[static_cast<std::size_t>(s) * batch + b] != best)
                    ++greedy_flips;
            }
        }
    }
    // Every token the path chose (prefill and steps, every sequence) is the first index of the
    // largest logit it stored: the fused step's LM head picks it itself (tiny_llm_gemv.cuh).
    int argmax_mismatches = 0;
    for (std::size_t i = 0; i < chosen.size(); ++i)
        argmax_mismatches += chosen[i] != first_argmax(logits.data() + i * vocab, vocab);
    const nlohmann::json probe = fused_step(batch) ? argmax_probe(stream) : nlohmann::json();
    // weights fp8: the reference above holds the same quantised weights (so bf16's tolerance
    // checks the kernels); the accuracy guard then compares the model with the bf16 one.
    const nlohmann::json guard = cfg_.fp8_weights ? accuracy_guard(stream) : nlohmann::json();
    const bool ok = max_err <= tol && greedy_flips == 0 && argmax_mismatches == 0
        && (probe.is_null() || probe.at("mismatches").get<int>() == 0)
        && (guard.is_null() || guard.at("ok").get<bool>());
    return {{"ok", ok}, {"max_abs_error", max_err}, {"tolerance", tol}, {"greedy_checked", greedy_checked},
        {"greedy_flips", greedy_flips}, {"argmax_mismatches", argmax_mismatches}, {"argmax_probe", probe},
        {"weight_probes", probes}, {"accuracy_guard", guard},
        {"compared",
            std::string(cfg_.fp8 ? "bf16 tiny_llm with an fp8 e4m3 KV cache" : "bf16 tiny_llm")
                + " logits (paged prefill of " + std::to_string(prefix) + " tokens through "
                + (own_gemm_ ? cfg_.prefill_gemm + " GEMMs" : std::string("cuBLASLt or GEMV linears")) + " + "
                + std::to_string(steps) + " greedy steps, " + std::to_string(positions)
                + " positions of sequences 0 and " + std::to_string(batch - 1)
                + ") vs an fp32 reference forward of the same seeded weights"
                + (cfg_.fp8_weights ? " quantised the same way (e4m3 codes x per-row scales, in fp32)" : "")
                + (cfg_.fp8 ? " (its decode steps attend K, V rounded to e4m3 with the same per-head scales)" : "")
                + "; |logit - ref| <= " + (cfg_.fp8 ? "3 * " : "")
                + "0.04 * sqrt(2 layers + 1) * max(rms(ref), 1); greedy tokens equal wherever the top-2 margin "
                  "exceeds 2x that ("
                + std::to_string(greedy_checked)
                + " positions); every chosen token the first index of its largest logit"
                + (probe.is_null() ? "" : ", also on one-hot LM head inputs with tied logits (argmax_probe)")
                + (guard.is_null() ? "" : "; and the accuracy guard against the bf16 model (accuracy_guard)")}};
}

} // namespace kwb::cuda::tllm
