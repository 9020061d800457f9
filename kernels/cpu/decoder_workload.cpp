// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/cpu_workloads.h"
#include "cpu/decoder.h"
#include "cpu/workload_util.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <fmt/format.h>
#include <random>

namespace kwb::cpu {
namespace {

constexpr const char* kName = "decoder";

struct Generation {
    int batch = 1;
    int prompt_len = 1;
    int gen_tokens = 2;
    int threads = 1;
};

class PreparedDecoder final : public PreparedWorkload {
public:
    PreparedDecoder(const DecoderConfig& config, const Generation& g)
        : gen_(g)
        , weights_(make_decoder_weights(config))
        , pool_(g.threads)
        , engine_(weights_, g.batch, g.prompt_len + g.gen_tokens, pool_)
    {
        // Prompt tokens from their own stream of the seed, so they differ from the weights'.
        std::mt19937_64 rng(config.seed ^ 0x9e3779b97f4a7c15ull);
        prompts_.assign(static_cast<std::size_t>(g.batch), std::vector<int>(static_cast<std::size_t>(g.prompt_len)));
        for (auto& p : prompts_)
            for (int& t : p)
                t = static_cast<int>(rng() % static_cast<std::uint64_t>(config.vocab));
    }

    // One repetition serves the whole batch: prefill, then greedy decoding until every sequence
    // has gen_tokens new tokens. TTFT ends when the first token of every sequence is chosen;
    // each later step (one token for every sequence) is one inter-token latency.
    RepetitionResult run_once() override
    {
        using clock = std::chrono::steady_clock;
        const auto ms_since
            = [](clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); };
        engine_.reset();
        std::vector<int> next(prompts_.size());
        std::vector<double> itl;
        const auto start = clock::now();
        engine_.prefill(prompts_);
        pick(next);
        const double ttft = ms_since(start);
        for (int step = 1; step < gen_.gen_tokens; ++step) {
            const auto t0 = clock::now();
            engine_.decode(next);
            pick(next);
            itl.push_back(ms_since(t0));
        }
        const double total_ms = ms_since(start);

        RepetitionResult r;
        r.metrics["ttft_ms"] = ttft;
        r.metrics["itl_p50_ms"] = percentile(itl, 50);
        r.metrics["itl_p99_ms"] = percentile(itl, 99);
        r.metrics["tok_s"] = gen_.batch * static_cast<double>(gen_.gen_tokens) / (total_ms / 1000.0);
        r.iterations = {ttft}; // one prefill per repetition
        return r;
    }

    // The engine's prefill and first decode step against the reference forward of the same
    // weights, for the first and last sequence of the batch (every one would cost batch times
    // as much and exercise no other path).
    VerifyResult verify() override
    {
        engine_.reset();
        const auto vocab = static_cast<std::size_t>(weights_.config.vocab);
        const auto first = engine_.prefill(prompts_);
        const std::vector<float> prefill_logits(first.begin(), first.end()); // decode() overwrites them
        std::vector<int> next(prompts_.size());
        pick(next);
        const auto decode_logits = engine_.decode(next);
        double err = 0, scale = 1;
        for (std::size_t b : {std::size_t {0}, prompts_.size() - 1}) {
            std::vector<int> tokens = prompts_[b];
            tokens.push_back(next[b]);
            const auto ref = decoder_reference(weights_, tokens, 2);
            const std::span<const float> ref_prefill(ref.data(), vocab), ref_decode(ref.data() + vocab, vocab);
            err = std::max({err, max_abs_diff(std::span(prefill_logits).subspan(b * vocab, vocab), ref_prefill),
                max_abs_diff(decode_logits.subspan(b * vocab, vocab), ref_decode)});
            scale = std::max(scale, max_abs(ref));
        }
        // Each layer adds sums of `hidden` and `ffn` terms in fp32 (about that many eps of
        // relative error at worst) on top of the previous layers' error.
        const auto& c = weights_.config;
        const double tol = static_cast<double>(c.layers + 1) * (c.hidden + c.ffn) * FLT_EPSILON * scale;
        return verify_result(err, tol, "decoder logits vs double reference forward");
    }

private:
    void pick(std::vector<int>& next) const
    {
        for (std::size_t b = 0; b < next.size(); ++b)
            next[b] = engine_.argmax(static_cast<int>(b));
    }

    Generation gen_;
    DecoderWeights weights_;
    ThreadPool pool_;
    DecoderEngine engine_;
    std::vector<std::vector<int>> prompts_;
};

class DecoderWorkload final : public Workload {
public:
    std::string name() const override { return kName; }
    std::string description() const override
    {
        return "small Llama-style decoder (RMSNorm, GQA + RoPE, SwiGLU; seeded random fp32 weights): "
               "batched prefill then greedy decoding with a KV cache";
    }
    std::vector<Backend> backends() const override { return {Backend::Cpu}; }
    std::vector<ParamSpec> params() const override
    {
        return {
            {"layers", 2, int_values({1, 2, 4, 8}), "decoder layers"},
            {"hidden", 256, int_values({128, 256, 512, 1024}), "model width; a multiple of heads"},
            {"heads", 8, int_values({2, 4, 8, 16}), "query heads; hidden / heads must be even (RoPE)"},
            {"kv_heads", 2, int_values({1, 2, 4, 8}), "key/value heads (grouped-query attention); divides heads"},
            {"ffn", 768, int_values({256, 768, 2048}), "SwiGLU inner width"},
            {"vocab", 4096, int_values({1024, 4096, 32000}), "vocabulary (embedding and LM head rows)"},
            {"prompt_len", 32, int_values({8, 32, 128, 256}), "tokens in each prompt"},
            {"gen_tokens", 32, int_values({2, 8, 16, 32, 64}), "tokens generated per sequence, the first included"},
            {"batch", 4, int_values({1, 2, 4, 8}), "prompts served together"},
            {"seed", 42, int_values({1, 42}), "seed of the weights and the prompt tokens"},
            threads_param(),
        };
    }
    std::vector<MetricSpec> metrics() const override
    {
        return {
            {"ttft_ms", "ms", Direction::Lower,
                "time to first token: prefill of the whole batch plus choosing each sequence's first token "
                "(one per repetition, also its single iteration value)"},
            {"itl_p50_ms", "ms", Direction::Lower,
                "median inter-token latency: one decode step (a token for every sequence) over the repetition's steps"},
            {"itl_p99_ms", "ms", Direction::Lower, "99th percentile of the same steps (interpolated)"},
            {"tok_s", "tok/s", Direction::Higher,
                "generated tokens (batch * gen_tokens) / wall time of the repetition, prefill included"},
        };
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        require_cpu(kName, backend);
        return checked(params);
    }

    void validate(const nlohmann::json& params, Backend backend) const override
    {
        if (backend == Backend::Cpu)
            checked(params, false);
    }

private:
    // The ranges of prepare() and validate(); prepares only when `make` is set.
    static std::unique_ptr<PreparedWorkload> checked(const nlohmann::json& params, bool make = true)
    {
        DecoderConfig c;
        c.layers = static_cast<int>(int_param(params, kName, "layers", 1, 128));
        c.hidden = static_cast<int>(int_param(params, kName, "hidden", 2, 16384));
        c.heads = static_cast<int>(int_param(params, kName, "heads", 1, 256));
        c.kv_heads = static_cast<int>(int_param(params, kName, "kv_heads", 1, 256));
        c.ffn = static_cast<int>(int_param(params, kName, "ffn", 1, 65536));
        c.vocab = static_cast<int>(int_param(params, kName, "vocab", 2, 1 << 20));
        c.seed = static_cast<std::uint64_t>(int_param(params, kName, "seed", 0, (1LL << 53)));
        if (c.hidden % c.heads != 0)
            throw WorkloadError(
                fmt::format("{}: parameter 'heads' ({}) must divide 'hidden' ({})", kName, c.heads, c.hidden));
        if (c.head_dim() % 2 != 0)
            throw WorkloadError(fmt::format("{}: hidden / heads = {} must be even for rotary embedding (parameters "
                                            "'hidden' and 'heads')",
                kName, c.head_dim()));
        if (c.heads % c.kv_heads != 0)
            throw WorkloadError(
                fmt::format("{}: parameter 'kv_heads' ({}) must divide 'heads' ({})", kName, c.kv_heads, c.heads));
        Generation g;
        g.prompt_len = static_cast<int>(int_param(params, kName, "prompt_len", 1, 65536));
        g.gen_tokens = static_cast<int>(int_param(params, kName, "gen_tokens", 2, 65536));
        g.batch = static_cast<int>(int_param(params, kName, "batch", 1, 1024));
        g.threads = static_cast<int>(int_param(params, kName, "threads", 1, 256));
        check_buffer(kName, decoder_weight_count(c), "the weights");
        const double rows = static_cast<double>(g.batch) * (g.prompt_len + g.gen_tokens);
        check_buffer(kName, rows * std::max(c.hidden, c.ffn), "the activations (batch x tokens x width)");
        check_buffer(kName, rows * c.layers * c.kv_dim(), "the KV cache");
        if (!make)
            return nullptr;
        return std::make_unique<PreparedDecoder>(c, g);
    }
};

} // namespace

std::unique_ptr<Workload> make_decoder_workload()
{
    return std::make_unique<DecoderWorkload>();
}

} // namespace kwb::cpu
