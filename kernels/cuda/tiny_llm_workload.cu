// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm on the GPU: the CPU backend's decoder in bf16 serving a seeded schedule of requests.
// A request's prefill runs the packed varlen flash kernel over its prompts and writes K and V
// into a paged cache (a shuffled page table); each decode step runs the paged decode kernel, the
// linear layers as GEMVs (or cuBLASLt), and a greedy argmax on the device, so nothing waits for
// the host and the step can be captured in a CUDA graph. CUDA events between tokens give each
// request's TTFT and inter-token latencies.
#include "../cpu/request_schedule.h"
#include "attention_decode_kernel.cuh"
#include "attention_prefill_kernel.cuh"
#include "cublaslt_loader.h"
#include "device_buffer.h"
#include "tiny_llm_model.h"
#include "tiny_llm_step_kernels.cuh"
#include "tiny_llm_workload.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kwb::cuda {
namespace {

constexpr const char* kName = "tiny_llm";
constexpr int kDecodeStages = 3;
constexpr int kGemvMaxRows = 8;
using tllm::ModelShape;
using tllm::WeightLayout;

struct Config {
    ModelShape m;
    llm::ScheduleSpec sched;
    int page_size, splits;
    bool graph, gemv, wrong;
    explicit Config(const nlohmann::json& p)
    {
        const auto num = [&p](const char* name, long long fallback, long long lo, long long hi) {
            return static_cast<int>(int_param(p, kName, name, fallback, lo, hi));
        };
        m.layers = num("layers", 16, 1, 128);
        m.hidden = num("hidden", 2048, 64, 16384);
        m.heads = num("heads", 16, 1, 256);
        m.kv_heads = num("kv_heads", 4, 1, 256);
        m.ffn = num("ffn", 5632, 8, 65536);
        m.vocab = num("vocab", 32000, 8, 1 << 20);
        m.seed = static_cast<std::uint64_t>(int_param(p, kName, "seed", 42, 0, 1LL << 53));
        sched.requests = num("requests", 8, 1, 4096);
        sched.batch = num("batch", 1, 1, 256);
        sched.prompt_len = num("prompt_len", 512, 1, 16384);
        sched.gen_tokens = num("gen_tokens", 64, 2, 16384);
        sched.spread_pct = num("length_spread", 50, 0, 100);
        sched.vocab = m.vocab;
        sched.seed = m.seed;
        page_size = num("page_size", 16, 16, 128);
        splits = num("splits", 0, 0, 64);
        graph = string_param(p, kName, "cuda_graph", "off", {"off", "on"}) == "on";
        gemv = string_param(p, kName, "decode_gemm", "gemv", {"gemv", "cublaslt"}) == "gemv";
        wrong = wants_wrong_result(p);
        const auto fail = [](const std::string& why) { throw ConfigError(std::string(kName) + ": " + why); };
        if (m.hidden % m.heads)
            fail("parameter 'heads' (" + std::to_string(m.heads) + ") must divide 'hidden' (" + std::to_string(m.hidden)
                + ")");
        if (m.head_dim() != 64 && m.head_dim() != 128)
            fail("hidden / heads must be 64 or 128 on the cuda backend (the attention kernels' head dims), got "
                + std::to_string(m.head_dim()));
        if (m.heads % m.kv_heads)
            fail("parameter 'kv_heads' (" + std::to_string(m.kv_heads) + ") must divide 'heads' ("
                + std::to_string(m.heads) + ")");
        const int g = m.heads / m.kv_heads;
        if (g != 1 && g != 2 && g != 4 && g != 8)
            fail("heads / kv_heads must be 1, 2, 4 or 8 on the cuda backend, got " + std::to_string(g));
        if (m.ffn % 8 || m.vocab % 8)
            fail("parameters 'ffn' and 'vocab' must be multiples of 8 on the cuda backend (16-byte rows)");
        if (page_size != 16 && page_size != 32 && page_size != 64 && page_size != 128)
            fail("parameter 'page_size' must be 16, 32, 64 or 128, got " + std::to_string(page_size));
        if (gemv && sched.batch > kGemvMaxRows)
            fail("decode_gemm gemv serves batch <= 8; batch " + std::to_string(sched.batch) + " needs cublaslt");
        if (WeightLayout(m).total * 2.0 > 64.0 * (1ull << 30))
            fail("the bf16 weights exceed 64 GiB");
        if (2.0 * m.layers * sched.batch * max_len() * m.kv_dim() * 2 > 32.0 * (1ull << 30))
            fail("the KV cache of layers x batch x (prompt_len + gen_tokens) x kv_dim exceeds 32 GiB");
        if (splits == 0) // auto: about 128 blocks of at least one 64-token tile each
            splits = std::clamp(128 / (sched.batch * m.kv_heads), 1, std::max(1, max_len() / decode::kTile));
    }
    int max_len() const { return sched.prompt_len + sched.gen_tokens; }
    int group() const { return m.heads / m.kv_heads; }
    std::string what() const
    {
        return "tiny_llm decode D" + std::to_string(m.head_dim()) + " G" + std::to_string(group()) + " bf16";
    }
};

using DecodeKernel = void (*)(decode::Params);
using PrefillKernel = void (*)(prefill::Params);

template<int D> DecodeKernel decode_for(int g, int& smem)
{
    switch (g) {
    case 1:
        smem = decode::smem_bytes<D, 1, __nv_bfloat16>(kDecodeStages);
        return decode::decode_kernel<D, 1, __nv_bfloat16>;
    case 2:
        smem = decode::smem_bytes<D, 2, __nv_bfloat16>(kDecodeStages);
        return decode::decode_kernel<D, 2, __nv_bfloat16>;
    case 4:
        smem = decode::smem_bytes<D, 4, __nv_bfloat16>(kDecodeStages);
        return decode::decode_kernel<D, 4, __nv_bfloat16>;
    default:
        smem = decode::smem_bytes<D, 8, __nv_bfloat16>(kDecodeStages);
        return decode::decode_kernel<D, 8, __nv_bfloat16>;
    }
}
DecodeKernel decode_kernel_for(const Config& c, int& smem)
{
    return c.m.head_dim() == 128 ? decode_for<128>(c.group(), smem) : decode_for<64>(c.group(), smem);
}
// The prefill configuration attention_prefill measures fastest on the H200: 128 x 64 tiles, 8
// warps, 2 stages.
constexpr int kPrefillBM = 128, kPrefillBN = 64, kPrefillWarps = 8, kPrefillStages = 2;
PrefillKernel prefill_kernel_for(const Config& c, int& smem)
{
    smem = (kPrefillBM + 2 * kPrefillBN * kPrefillStages) * (c.m.head_dim() + 8) * 2;
    return c.m.head_dim() == 128 ? prefill::prefill_kernel<128, kPrefillBM, kPrefillBN, kPrefillWarps>
                                 : prefill::prefill_kernel<64, kPrefillBM, kPrefillBN, kPrefillWarps>;
}

std::uint64_t splitmix(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class TinyLlm final : public GpuWorkload {
public:
    TinyLlm(const Config& cfg, cudaStream_t stream);
    ~TinyLlm() override;

    void launch(cudaStream_t stream) override;
    nlohmann::json verify(cudaStream_t stream) override;
    double flops_per_launch() const override { return flops_; }
    double bytes_per_launch() const override { return bytes_; }
    nlohmann::json metrics() const override;

private:
    DeviceBuffer& alloc(DeviceBuffer& b, std::size_t bytes)
    {
        b = DeviceBuffer(bytes);
        allocated_ += bytes;
        return b;
    }
    const __nv_bfloat16* w(std::size_t at) const { return weights_.as<__nv_bfloat16>() + at; }
    const float* gain(std::size_t at) const { return norms_.as<float>() + at; }
    void linear(
        const __nv_bfloat16* in, int rows, std::size_t at, int n, int k, void* out, cudaStream_t s, int glu = 0) const;
    void forward(int rows, int per, const int* cu_seqlens, int max_len, cudaStream_t s) const;
    void prefill(const int* tokens, int prompt_len, const int* cu_seqlens, cudaStream_t s) const;
    void decode_step(cudaStream_t s) const;
    void step(cudaStream_t s) const
    {
        if (exec_)
            KWB_CUDA(cudaGraphLaunch(exec_, s));
        else
            decode_step(s);
    }

    Config cfg_;
    WeightLayout layout_;
    std::vector<llm::Request> requests_;
    int max_prompt_ = 0, max_pages_ = 0, pages_ = 0, decode_smem_ = 0, prefill_smem_ = 0;
    DecodeKernel decode_kernel_;
    PrefillKernel prefill_kernel_;
    std::size_t allocated_ = 0;
    DeviceBuffer weights_, norms_, rope_, k_pool_, v_pool_, table_, seq_len_, prompts_, cu_, ones_;
    DeviceBuffer x_, xn_, act_, qkv_, q_, k_, v_, attn_, delta_, gu_, logits_, next_, o_part_, m_part_, l_part_;
    DeviceBuffer workspace_;
    std::vector<std::size_t> prompt_at_; // offset of each request's tokens in prompts_
    std::vector<cudaEvent_t> events_; // per request: start, then one per token
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    double flops_ = 0, bytes_ = 0, step_bytes_ = 0, generated_ = 0;
};

TinyLlm::TinyLlm(const Config& cfg, cudaStream_t stream)
    : cfg_(cfg)
    , layout_(cfg.m)
    , requests_(llm::make_schedule(cfg.sched))
    , decode_kernel_(decode_kernel_for(cfg, decode_smem_))
    , prefill_kernel_(prefill_kernel_for(cfg, prefill_smem_))
{
    const auto& m = cfg.m;
    const int batch = cfg.sched.batch, hd = m.head_dim();
    if (!CublasLt::get())
        throw ConfigError(std::string(kName) + ": the prefill GEMMs need cuBLASLt: " + CublasLt::why());
    KWB_CUDA(cudaFuncSetAttribute(decode_kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize, decode_smem_));
    KWB_CUDA(cudaFuncSetAttribute(prefill_kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize, prefill_smem_));
    for (const auto& r : requests_)
        max_prompt_ = std::max(max_prompt_, r.prompt_len);

    alloc(weights_, layout_.total * 2);
    alloc(norms_, layout_.norms * 4);
    tllm::seed_weights(m, weights_.as<void>(), true, norms_.as<float>(), stream);

    // RoPE angles as the CPU backend computes them (double angle, float cos and sin).
    const int max_len = cfg.max_len();
    std::vector<float2> rope(static_cast<std::size_t>(max_len) * (hd / 2));
    for (int pos = 0; pos < max_len; ++pos)
        for (int i = 0; i < hd / 2; ++i) {
            const double angle = pos * std::pow(tllm::kRopeTheta, -2.0 * i / hd);
            rope[static_cast<std::size_t>(pos) * (hd / 2) + i]
                = make_float2(static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle)));
        }
    alloc(rope_, rope.size() * sizeof(float2));

    // Every sequence's pages drawn from one shuffled pool, shared by the layers.
    max_pages_ = (max_len + cfg.page_size - 1) / cfg.page_size;
    pages_ = batch * max_pages_;
    std::vector<int> table(static_cast<std::size_t>(pages_));
    std::iota(table.begin(), table.end(), 0);
    std::uint64_t state = m.seed + 977;
    for (int i = pages_ - 1; i > 0; --i)
        std::swap(table[i], table[splitmix(state) % (i + 1)]);
    const std::size_t layer_pool = static_cast<std::size_t>(pages_) * m.kv_heads * cfg.page_size * hd;
    alloc(k_pool_, layer_pool * m.layers * 2);
    alloc(v_pool_, layer_pool * m.layers * 2);
    alloc(table_, table.size() * 4);
    alloc(seq_len_, batch * 4);

    // Every request's prompts, and the cumulative lengths of its packed batch (one more row for
    // the check's prefix).
    std::vector<int> tokens, cu;
    for (const auto& r : requests_) {
        prompt_at_.push_back(tokens.size());
        for (const auto& p : r.prompts)
            tokens.insert(tokens.end(), p.begin(), p.end());
        for (int b = 0; b <= batch; ++b)
            cu.push_back(b * r.prompt_len);
        generated_ += static_cast<double>(batch) * r.gen_tokens;
    }
    cu.resize(cu.size() + batch + 1);
    alloc(prompts_, tokens.size() * 4);
    alloc(cu_, cu.size() * 4);
    std::vector<float> ones(m.kv_heads, 1.0f);
    alloc(ones_, ones.size() * 4);

    const std::size_t rows = static_cast<std::size_t>(batch) * max_prompt_;
    alloc(x_, rows * m.hidden * 4);
    alloc(xn_, rows * m.hidden * 2);
    alloc(act_, rows * m.ffn * 2);
    alloc(qkv_, rows * m.qkv_width() * 4);
    alloc(q_, rows * m.hidden * 2);
    alloc(k_, rows * m.kv_dim() * 2);
    alloc(v_, rows * m.kv_dim() * 2);
    alloc(attn_, rows * m.hidden * 2);
    alloc(delta_, rows * m.hidden * 4);
    alloc(gu_, rows * 2 * m.ffn * 4);
    alloc(logits_, static_cast<std::size_t>(batch) * m.vocab * 4);
    alloc(next_, batch * 4);
    if (cfg.splits > 1) {
        alloc(o_part_, static_cast<std::size_t>(batch) * m.heads * cfg.splits * hd * 4);
        alloc(m_part_, static_cast<std::size_t>(batch) * m.heads * cfg.splits * 4);
        alloc(l_part_, static_cast<std::size_t>(batch) * m.heads * cfg.splits * 4);
    }
    alloc(workspace_, CublasLt::workspace_bytes());
    KWB_CUDA(cudaMemcpyAsync(rope_.as<void>(), rope.data(), rope_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(table_.as<void>(), table.data(), table_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(prompts_.as<void>(), tokens.data(), prompts_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(cu_.as<void>(), cu.data(), cu_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(ones_.as<void>(), ones.data(), ones_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaStreamSynchronize(stream));

    for (const auto& r : requests_)
        for (int e = 0; e <= r.gen_tokens; ++e) {
            cudaEvent_t ev = nullptr;
            KWB_CUDA(cudaEventCreate(&ev));
            events_.push_back(ev);
        }

    // Work and traffic: 2 FLOP per weight per token through the linear layers; per decode step
    // every weight once plus the K and V of the context (mean over the schedule).
    const double linear_weights = static_cast<double>(layout_.per_layer) * m.layers + layout_.total - layout_.lm_head;
    double tokens_in = 0, steps = 0, kv_read = 0;
    for (const auto& r : requests_) {
        tokens_in += static_cast<double>(batch) * (r.prompt_len + r.gen_tokens - 1);
        steps += r.gen_tokens - 1;
        for (int t = 1; t < r.gen_tokens; ++t)
            kv_read += 2.0 * batch * m.layers * (r.prompt_len + t) * m.kv_dim() * 2;
    }
    flops_ = 2.0 * linear_weights * tokens_in;
    step_bytes_ = linear_weights * 2 + (steps > 0 ? kv_read / steps : 0);
    bytes_ = linear_weights * 2 * (requests_.size() + steps) + kv_read;

    if (cfg.graph) {
        // One eager step first: cuBLASLt picks its algorithms outside the capture.
        tllm::set_lengths<<<1, 256, 0, stream>>>(seq_len_.as<int>(), batch, 0);
        KWB_CUDA(cudaMemsetAsync(next_.as<void>(), 0, next_.bytes(), stream));
        decode_step(stream);
        KWB_CUDA(cudaStreamSynchronize(stream));
        KWB_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        decode_step(stream);
        KWB_CUDA(cudaStreamEndCapture(stream, &graph_));
        KWB_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
    }
}

TinyLlm::~TinyLlm()
{
    for (auto ev : events_)
        cudaEventDestroy(ev);
    if (exec_)
        cudaGraphExecDestroy(exec_);
    if (graph_)
        cudaGraphDestroy(graph_);
}

// With glu (GEMV only) the fused gate/up projection: `out` gets silu(gate) * up in bf16, n = glu.
void TinyLlm::linear(
    const __nv_bfloat16* in, int rows, std::size_t at, int n, int k, void* out, cudaStream_t s, int glu) const
{
    if (cfg_.gemv && rows <= kGemvMaxRows) {
        const unsigned blocks = static_cast<unsigned>((n + 7) / 8);
        if (rows == 1)
            tllm::gemv<1><<<blocks, 256, 0, s>>>(in, w(at), out, rows, n, k, glu);
        else if (rows == 2)
            tllm::gemv<2><<<blocks, 256, 0, s>>>(in, w(at), out, rows, n, k, glu);
        else if (rows <= 4)
            tllm::gemv<4><<<blocks, 256, 0, s>>>(in, w(at), out, rows, n, k, glu);
        else
            tllm::gemv<8><<<blocks, 256, 0, s>>>(in, w(at), out, rows, n, k, glu);
        KWB_CUDA_LAUNCHED("gemv");
    } else
        CublasLt::get()->gemm_bf16_wt(in, w(at), static_cast<float*>(out), rows, n, k, workspace_.as<void>(), s);
}

// rows = batch x per tokens (per = prompt length in a prefill, 1 in a decode step) at positions
// ending at seq_len[b] - 1; leaves each sequence's last-position logits in logits_.
void TinyLlm::forward(int rows, int per, const int* cu_seqlens, int max_len, cudaStream_t s) const
{
    const auto& m = cfg_.m;
    const int batch = cfg_.sched.batch, h = m.hidden, hd = m.head_dim();
    const std::size_t layer_pool = static_cast<std::size_t>(pages_) * m.kv_heads * cfg_.page_size * hd;
    const float scale_log2 = 1.0f / std::sqrt(static_cast<float>(hd)) * decode::kLog2e;
    for (int l = 0; l < m.layers; ++l) {
        tllm::residual_rmsnorm<__nv_bfloat16><<<rows, tllm::kNormThreads, 0, s>>>(x_.as<float>(),
            l ? delta_.as<float>() : nullptr, gain(layout_.attn_norm(l)), xn_.as<__nv_bfloat16>(), h, 1);
        linear(xn_.as<__nv_bfloat16>(), rows, layout_.qkv(l), m.qkv_width(), h, qkv_.as<float>(), s);
        __nv_bfloat16* kp = k_pool_.as<__nv_bfloat16>() + layer_pool * l;
        __nv_bfloat16* vp = v_pool_.as<__nv_bfloat16>() + layer_pool * l;
        tllm::rope_scatter<<<dim3(rows, (m.qkv_width() / 2 + 255) / 256), 256, 0, s>>>(tllm::RopeArgs {qkv_.as<float>(),
            rope_.as<float2>(), seq_len_.as<int>(), table_.as<int>(), q_.as<__nv_bfloat16>(), k_.as<__nv_bfloat16>(),
            v_.as<__nv_bfloat16>(), kp, vp, h, m.kv_dim(), hd, per, cfg_.page_size, max_pages_});
        KWB_CUDA_LAUNCHED("rope_scatter");
        if (per > 1 || cu_seqlens) {
            const prefill::Params p {q_.as<__nv_bfloat16>(), k_.as<__nv_bfloat16>(), v_.as<__nv_bfloat16>(),
                attn_.as<__nv_bfloat16>(), cu_seqlens, m.heads, m.kv_heads, kPrefillStages, scale_log2};
            const dim3 grid((max_len + kPrefillBM - 1) / kPrefillBM, m.heads, batch);
            prefill_kernel_<<<grid, kPrefillWarps * 32, prefill_smem_, s>>>(p);
            KWB_CUDA_LAUNCHED("prefill attention");
        } else {
            const decode::Params p {kp, vp, table_.as<int>(), seq_len_.as<int>(), q_.as<__nv_bfloat16>(),
                ones_.as<float>(), ones_.as<float>(), attn_.as<__nv_bfloat16>(), o_part_.as<float>(),
                m_part_.as<float>(), l_part_.as<float>(), m.kv_heads, cfg_.page_size, max_pages_, cfg_.splits,
                kDecodeStages, scale_log2};
            decode_kernel_<<<dim3(cfg_.splits, m.kv_heads, batch), decode::kThreads, decode_smem_, s>>>(p);
            if (cfg_.splits > 1) {
                const unsigned r = static_cast<unsigned>(batch * m.heads);
                if (hd == 128)
                    decode::decode_combine<128><<<r, 128, 0, s>>>(p);
                else
                    decode::decode_combine<64><<<r, 64, 0, s>>>(p);
            }
            KWB_CUDA_LAUNCHED("decode attention");
        }
        linear(attn_.as<__nv_bfloat16>(), rows, layout_.wo(l), h, h, delta_.as<float>(), s);
        tllm::residual_rmsnorm<__nv_bfloat16><<<rows, tllm::kNormThreads, 0, s>>>(
            x_.as<float>(), delta_.as<float>(), gain(layout_.ffn_norm(l)), xn_.as<__nv_bfloat16>(), h, 1);
        if (cfg_.gemv && rows <= kGemvMaxRows)
            linear(xn_.as<__nv_bfloat16>(), rows, layout_.gate_up(l), m.ffn, h, act_.as<void>(), s, m.ffn);
        else {
            linear(xn_.as<__nv_bfloat16>(), rows, layout_.gate_up(l), 2 * m.ffn, h, gu_.as<float>(), s);
            tllm::swiglu<__nv_bfloat16><<<rows, 256, 0, s>>>(gu_.as<float>(), act_.as<__nv_bfloat16>(), m.ffn);
        }
        linear(act_.as<__nv_bfloat16>(), rows, layout_.down(l), h, m.ffn, delta_.as<float>(), s);
    }
    // Only each sequence's last position goes through the final norm and the LM head.
    tllm::residual_rmsnorm<__nv_bfloat16><<<batch, tllm::kNormThreads, 0, s>>>(
        x_.as<float>(), delta_.as<float>(), gain(layout_.final_norm()), xn_.as<__nv_bfloat16>(), h, per);
    linear(xn_.as<__nv_bfloat16>(), batch, layout_.lm_head, m.vocab, h, logits_.as<float>(), s);
    tllm::argmax_tokens<<<batch, tllm::kArgmaxThreads, 0, s>>>(
        logits_.as<float>(), m.vocab, next_.as<int>(), nullptr, 0, 0);
    KWB_CUDA_LAUNCHED("forward");
}

void TinyLlm::prefill(const int* tokens, int prompt_len, const int* cu_seqlens, cudaStream_t s) const
{
    const int batch = cfg_.sched.batch;
    tllm::set_lengths<<<1, 256, 0, s>>>(seq_len_.as<int>(), batch, prompt_len);
    tllm::embed<__nv_bfloat16>
        <<<batch * prompt_len, 256, 0, s>>>(tokens, w(layout_.embedding), x_.as<float>(), cfg_.m.hidden);
    forward(batch * prompt_len, prompt_len, cu_seqlens, prompt_len, s);
}

void TinyLlm::decode_step(cudaStream_t s) const
{
    const int batch = cfg_.sched.batch;
    tllm::set_lengths<<<1, 256, 0, s>>>(seq_len_.as<int>(), batch, -1);
    tllm::embed<__nv_bfloat16>
        <<<batch, 256, 0, s>>>(next_.as<int>(), w(layout_.embedding), x_.as<float>(), cfg_.m.hidden);
    forward(batch, 1, nullptr, 1, s);
}

void TinyLlm::launch(cudaStream_t stream)
{
    std::size_t e = 0;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
        const auto& r = requests_[i];
        KWB_CUDA(cudaEventRecord(events_[e++], stream));
        prefill(prompts_.as<int>() + prompt_at_[i], r.prompt_len, cu_.as<int>() + i * (cfg_.sched.batch + 1), stream);
        KWB_CUDA(cudaEventRecord(events_[e++], stream));
        for (int t = 1; t < r.gen_tokens; ++t) {
            step(stream);
            KWB_CUDA(cudaEventRecord(events_[e++], stream));
        }
    }
}

nlohmann::json TinyLlm::metrics() const
{
    KWB_CUDA(cudaEventSynchronize(events_.back()));
    const auto gap = [](cudaEvent_t a, cudaEvent_t b) {
        float ms = 0;
        KWB_CUDA(cudaEventElapsedTime(&ms, a, b));
        return static_cast<double>(ms);
    };
    std::vector<llm::ServedRequest> served;
    std::size_t e = 0;
    for (const auto& r : requests_) {
        llm::ServedRequest s;
        s.ttft_ms = gap(events_[e], events_[e + 1]);
        for (int t = 1; t < r.gen_tokens; ++t)
            s.itl_ms.push_back(gap(events_[e + t], events_[e + t + 1]));
        e += r.gen_tokens + 1;
        served.push_back(std::move(s));
    }
    std::map<std::string, double> m;
    llm::serving_metrics(served, gap(events_.front(), events_.back()), generated_, m);
    nlohmann::json out(m);
    out["peak_mem_mib"] = static_cast<double>(allocated_) / (1 << 20);
    out["step_mb"] = step_bytes_ / 1e6;
    if (m["itl_p50_ms"] > 0)
        out["step_gbs"] = step_bytes_ / (m["itl_p50_ms"] * 1e6);
    // Each request's TTFT at its first token and each gap at its token, on the repetition's clock
    // (from its first event): the engine's `ttft` and `itl` lanes.
    nlohmann::json ttft = nlohmann::json::array(), ttft_at = nlohmann::json::array(), itl = nlohmann::json::array(),
                   itl_at = nlohmann::json::array();
    e = 0;
    for (std::size_t i = 0; i < served.size(); ++i) {
        ttft.push_back(served[i].ttft_ms);
        ttft_at.push_back(gap(events_.front(), events_[e + 1]));
        for (std::size_t t = 0; t < served[i].itl_ms.size(); ++t) {
            itl.push_back(served[i].itl_ms[t]);
            itl_at.push_back(gap(events_.front(), events_[e + t + 2]));
        }
        e += requests_[i].gen_tokens + 1;
    }
    out["iterations"] = ttft; // each request's TTFT, in order: the repetition's iteration values
    out["readings"] = {{"ttft", {{"unit", "ms"}, {"t_ms", ttft_at}, {"values", ttft}}},
        {"itl", {{"unit", "ms"}, {"t_ms", itl_at}, {"values", itl}}}};
    return out;
}

nlohmann::json TinyLlm::verify(cudaStream_t stream)
{
    // A short prefix of request 0's prompts, then greedy steps, each sequence's logits kept; the
    // reference runs the first and the last sequence through the same tokens in fp32.
    const auto& m = cfg_.m;
    const int batch = cfg_.sched.batch;
    const auto& r0 = requests_.front();
    const int prefix = std::min(r0.prompt_len, 8), steps = std::min(4, cfg_.sched.gen_tokens - 1);
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
    poison(logits_, stream);
    for (int s = 0; s <= steps; ++s) {
        if (s == 0)
            prefill(tok.as<int>(), prefix, cu_check, stream);
        else
            step(stream);
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
    std::vector<int> checked_seqs {0};
    if (batch > 1)
        checked_seqs.push_back(batch - 1);
    for (int b : checked_seqs) {
        std::vector<int> seq(tokens.begin() + static_cast<std::ptrdiff_t>(b) * prefix,
            tokens.begin() + static_cast<std::ptrdiff_t>(b + 1) * prefix);
        for (int s = 0; s < steps; ++s)
            seq.push_back(chosen[static_cast<std::size_t>(s) * batch + b]);
        const auto ref = tllm::reference_logits(m, seq, prefix - 1, stream, b == 0 ? &probes : nullptr);
        // bf16 weights and GEMM inputs: each rounding is 2^-9 relative and random in sign, so a
        // logit's error grows with the square root of the roundings it passes (two per layer in
        // the residual stream): 0.04 of the logits' RMS per sqrt(2 layers + 1).
        double ss = 0;
        for (float v : ref)
            ss += static_cast<double>(v) * v;
        const double rms = std::sqrt(ss / static_cast<double>(ref.size()));
        tol = std::max(tol, 0.04 * std::sqrt(2.0 * m.layers + 1) * std::max(1.0, rms));
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
    const bool ok = max_err <= tol && greedy_flips == 0;
    return {{"ok", ok}, {"max_abs_error", max_err}, {"tolerance", tol}, {"greedy_checked", greedy_checked},
        {"greedy_flips", greedy_flips}, {"weight_probes", probes},
        {"compared",
            "bf16 tiny_llm logits (paged prefill of " + std::to_string(prefix) + " tokens + " + std::to_string(steps)
                + " greedy steps, " + std::to_string(positions) + " positions of sequences 0 and "
                + std::to_string(batch - 1)
                + ") vs an fp32 reference forward of the same seeded weights; |logit - ref| <= 0.04 * sqrt(2 layers + "
                  "1) * "
                  "max(rms(ref), 1); greedy tokens equal wherever the top-2 margin exceeds 2x that ("
                + std::to_string(greedy_checked) + " positions)"}};
}

} // namespace

WorkloadKind tiny_llm_kind()
{
    return {kName,
        [](const nlohmann::json& p) {
            const Config cfg(p);
            int smem = 0;
            const auto kernel = decode_kernel_for(cfg, smem);
            return ResourceNeeds {cfg.what(), reinterpret_cast<const void*>(kernel), decode::kThreads,
                static_cast<std::size_t>(smem), {}};
        },
        [](const nlohmann::json& p, cudaStream_t stream) -> std::unique_ptr<GpuWorkload> {
            return std::make_unique<TinyLlm>(Config(p), stream);
        }};
}

} // namespace kwb::cuda
