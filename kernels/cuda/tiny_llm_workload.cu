// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm on the GPU: the CPU backend's decoder in bf16 serving a seeded schedule of requests.
// A request's prefill runs the packed varlen flash kernel over its prompts and writes K and V
// into a paged cache (a shuffled page table); each decode step runs the paged decode kernel, the
// linear layers as GEMVs (or cuBLASLt), and a greedy argmax on the device, so nothing waits for
// the host and the step can be captured in a CUDA graph. CUDA events between tokens give each
// request's TTFT and inter-token latencies. This file holds the model's buffers, its forward
// pass and its check; tiny_llm_serving.cu serves the requests.
#include "attention_decode_select.cuh"
#include "cublaslt_loader.h"
#include "device_query.h"
#include "tiny_llm_engine.h"
#include "tiny_llm_gemv.cuh"
#include "tiny_llm_workload.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <tuple>

namespace kwb::cuda::tllm {
namespace {
constexpr int kDecodeStages = 3;
} // namespace

Config::Config(const nlohmann::json& p)
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
    fp8 = string_param(p, kName, "kv_dtype", "bf16", {"bf16", "fp8"}) == "fp8";
    pdl = string_param(p, kName, "pdl", "on", {"off", "on"}) == "on";
    prefill_gemm = string_param(p, kName, "prefill_gemm", "cublaslt", {"cublaslt", "wgmma", "tiled"});
    gemv_blocks_per_sm = num("gemv_blocks_per_sm", 0, 0, 8);
    gemv_balanced = string_param(p, kName, "gemv_grid", "balanced", {"wave", "balanced"}) == "balanced";
    const std::string impl = string_param(p, kName, "attention_impl", "auto", {"auto", "simt", "mma"});
    mma_attention = impl == "mma" || (impl == "auto" && !fp8);
    early_attention = string_param(p, kName, "early_attention", "on", {"off", "on"}) == "on";
    sched.arrivals = string_param(p, kName, "arrivals", "sequential", {"sequential", "poisson"}) == "poisson"
        ? llm::Arrivals::Poisson
        : llm::Arrivals::Sequential;
    sched.rate = static_cast<double>(int_param(p, kName, "rate", 50, 1, 1000000));
    max_batch = num("max_batch", 8, 1, 256);
    fp8_weights = string_param(p, kName, "weights", "bf16", {"bf16", "fp8"}) == "fp8";
    wrong = wants_wrong_result(p);
    const auto fail = [](const std::string& why) { throw ConfigError(std::string(kName) + ": " + why); };
    if (m.hidden % m.heads)
        fail("parameter 'heads' (" + std::to_string(m.heads) + ") must divide 'hidden' (" + std::to_string(m.hidden)
            + ")");
    if (m.head_dim() != 64 && m.head_dim() != 128)
        fail("hidden / heads must be 64 or 128 on the cuda backend (the attention kernels' head dims), got "
            + std::to_string(m.head_dim()));
    if (m.heads % m.kv_heads)
        fail("parameter 'kv_heads' (" + std::to_string(m.kv_heads) + ") must divide 'heads' (" + std::to_string(m.heads)
            + ")");
    const int g = m.heads / m.kv_heads;
    if (g != 1 && g != 2 && g != 4 && g != 8)
        fail("heads / kv_heads must be 1, 2, 4 or 8 on the cuda backend, got " + std::to_string(g));
    if (m.ffn % 8 || m.vocab % 8)
        fail("parameters 'ffn' and 'vocab' must be multiples of 8 on the cuda backend (16-byte rows)");
    if (mma_attention && fp8)
        fail("attention_impl mma reads a bf16 cache; kv_dtype fp8 runs on attention_impl simt");
    if (fp8_weights && !gemv)
        fail("weights fp8 are dequantised inside the decode GEMV: they need decode_gemm gemv");
    if (fp8_weights && (m.hidden % 16 || m.ffn % 16))
        fail("weights fp8 need 'hidden' and 'ffn' multiples of 16 (a 16-byte load carries 16 weights of a row)");
    if (page_size != 16 && page_size != 32 && page_size != 64 && page_size != 128)
        fail("parameter 'page_size' must be 16, 32, 64 or 128, got " + std::to_string(page_size));
    if (gemv && sched.batch > kGemvMaxRows)
        fail("decode_gemm gemv serves batch <= 8; batch " + std::to_string(sched.batch) + " needs cublaslt");
    if (poisson() && max_batch < sched.batch)
        fail("parameter 'max_batch' (" + std::to_string(max_batch) + ") must hold one request's 'batch' ("
            + std::to_string(sched.batch) + ") sequences");
    if (gemv && rows() > kGemvMaxRows)
        fail("decode_gemm gemv serves steps of <= 8 rows; max_batch " + std::to_string(max_batch) + " needs cublaslt");
    if (WeightLayout(m).total * 2.0 > 64.0 * (1ull << 30))
        fail("the bf16 weights exceed 64 GiB");
    if (2.0 * m.layers * rows() * max_len() * m.kv_dim() * 2 > 32.0 * (1ull << 30))
        fail("the KV cache of layers x rows (batch, or max_batch with poisson arrivals) x (prompt_len + gen_tokens) x "
             "kv_dim exceeds 32 GiB");
}
std::string Config::what() const
{
    return std::string("tiny_llm ") + (mma_attention ? "mma " : "") + "decode D" + std::to_string(m.head_dim()) + " G"
        + std::to_string(group()) + (fp8 ? " fp8" : " bf16") + (fp8_weights ? " w8" : "");
}

DecodeKernel decode_kernel_for(const Config& c, int& smem)
{
    const auto chosen = decode::select_kernel(c.mma_attention, c.fp8, c.m.head_dim(), c.group(), kDecodeStages);
    smem = chosen.smem;
    return chosen.kernel;
}

namespace {
// The prefill configuration attention_prefill measures fastest on the H200: 128 x 64 tiles, 8
// warps, 2 stages.
constexpr int kPrefillBM = 128, kPrefillBN = 64, kPrefillWarps = 8, kPrefillStages = 2;
PrefillKernel prefill_kernel_for(const Config& c, int& smem)
{
    smem = (kPrefillBM + 2 * kPrefillBN * kPrefillStages) * (c.m.head_dim() + 8) * 2;
    return c.m.head_dim() == 128 ? prefill::prefill_kernel<128, kPrefillBM, kPrefillBN, kPrefillWarps>
                                 : prefill::prefill_kernel<64, kPrefillBM, kPrefillBN, kPrefillWarps>;
}

} // namespace

TinyLlm::TinyLlm(const Config& cfg, cudaStream_t stream)
    : cfg_(cfg)
    , layout_(cfg.m)
    , requests_(llm::make_schedule(cfg.sched))
    , decode_kernel_(decode_kernel_for(cfg, decode_smem_))
    , prefill_kernel_(prefill_kernel_for(cfg, prefill_smem_))
{
    const auto& m = cfg.m;
    const int batch = cfg.sched.batch, slots = cfg.rows(), hd = m.head_dim();
    if (!CublasLt::get())
        throw ConfigError(std::string(kName) + ": the prefill GEMMs need cuBLASLt: " + CublasLt::why());
    KWB_CUDA(cudaFuncSetAttribute(decode_kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize, decode_smem_));
    KWB_CUDA(cudaFuncSetAttribute(prefill_kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize, prefill_smem_));
    for (const auto& r : requests_)
        max_prompt_ = std::max(max_prompt_, r.prompt_len);

    alloc(weights_, layout_.total * 2);
    alloc(norms_, layout_.norms * 4);
    seed_weights(m, weights_.as<void>(), true, norms_.as<float>(), stream);
    // weights fp8: the codes and row scales the steps' GEMVs read, once from the bf16 weights,
    // which become their dequantised copy (for the prefills and the own prefill GEMM's transpose).
    const auto matrices = linear_matrices(m);
    if (cfg.fp8_weights) {
        alloc(wq_, layout_.total - layout_.qkv(0));
        alloc(wscale_, (matrices.back().first_row + matrices.back().rows) * 4);
        for (const auto& mat : matrices)
            scale_at_[mat.at] = mat.first_row;
        quantise_weights(m, weights_.as<void>(), true, wq_.as<void>(), wscale_.as<float>(), stream);
    }
    const std::size_t rows = std::max<std::size_t>(static_cast<std::size_t>(batch) * max_prompt_, slots);
    if (cfg.prefill_gemm != "cublaslt") {
        own_gemm_ = std::make_unique<PrefillGemm>(cfg.prefill_gemm, m, layout_, w(0), static_cast<int>(rows), stream);
        allocated_ += own_gemm_->bytes();
    }

    // RoPE angles as the CPU backend computes them (double angle, float cos and sin).
    const int max_len = cfg.max_len();
    std::vector<float2> rope(static_cast<std::size_t>(max_len) * (hd / 2));
    for (int pos = 0; pos < max_len; ++pos)
        for (int i = 0; i < hd / 2; ++i) {
            const double angle = pos * std::pow(kRopeTheta, -2.0 * i / hd);
            rope[static_cast<std::size_t>(pos) * (hd / 2) + i]
                = make_float2(static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle)));
        }
    alloc(rope_, rope.size() * sizeof(float2));

    // Every sequence's pages drawn from one shuffled pool, shared by the layers; with poisson
    // arrivals a joining request takes its pages from the free ones (serving.cu).
    max_pages_ = (max_len + cfg.page_size - 1) / cfg.page_size;
    pages_ = slots * max_pages_;
    if (cfg_.splits == 0) // auto: about one block per SM, the GEMVs' blocks share them
        cfg_.splits = decode::auto_splits(slots, m.kv_heads, max_pages_ * cfg.page_size, current_sm_count(), 1);
    std::vector<int>& table = table_host_;
    table.resize(static_cast<std::size_t>(pages_));
    std::iota(table.begin(), table.end(), 0);
    std::uint64_t state = m.seed + 977;
    for (int i = pages_ - 1; i > 0; --i)
        std::swap(table[i], table[llm::splitmix64(state) % (i + 1)]);
    const std::size_t layer_pool = static_cast<std::size_t>(pages_) * m.kv_heads * cfg.page_size * hd;
    const int kv_bytes = cfg.fp8 ? 1 : 2;
    alloc(k_pool_, layer_pool * m.layers * kv_bytes);
    alloc(v_pool_, layer_pool * m.layers * kv_bytes);
    alloc(table_, table.size() * 4);
    alloc(seq_len_, slots * 4);

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
    kv_scale_host_.assign(static_cast<std::size_t>(m.layers) * 2 * m.kv_heads, 1.0f);
    alloc(kv_scale_, kv_scale_host_.size() * 4);

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
    alloc(logits_, static_cast<std::size_t>(slots) * m.vocab * 4);
    alloc(next_, slots * 4);
    if (cfg.gemv) { // the fused step's LM head: its blocks' argmax candidates and their arrival count
        alloc(argmax_partial_, (m.vocab + kGemvWarps - 1) / kGemvWarps * sizeof(float2) * kGemvMaxRows);
        alloc(argmax_arrived_, 4);
        KWB_CUDA(cudaMemsetAsync(argmax_arrived_.as<void>(), 0, 4, stream));
    }
    if (cfg_.splits > 1) {
        alloc(o_part_, static_cast<std::size_t>(slots) * m.heads * cfg_.splits * hd * 4);
        alloc(m_part_, static_cast<std::size_t>(slots) * m.heads * cfg_.splits * 4);
        alloc(l_part_, static_cast<std::size_t>(slots) * m.heads * cfg_.splits * 4);
    }
    alloc(workspace_, CublasLt::workspace_bytes());
    KWB_CUDA(cudaMemcpyAsync(rope_.as<void>(), rope.data(), rope_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(table_.as<void>(), table.data(), table_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(prompts_.as<void>(), tokens.data(), prompts_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(cu_.as<void>(), cu.data(), cu_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(
        kv_scale_.as<void>(), kv_scale_host_.data(), kv_scale_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaStreamSynchronize(stream));
    if (cfg.fp8)
        calibrate_fp8(stream);

    for (const auto& r : requests_)
        for (int e = 0; e <= r.gen_tokens && !cfg.poisson(); ++e) {
            cudaEvent_t ev = nullptr;
            KWB_CUDA(cudaEventCreate(&ev));
            events_.push_back(ev);
        }

    // Work: 2 FLOP per weight per token through the linear layers. Traffic: decode_traffic.h's
    // model, for the sequential schedule until a continuous batch has run (serving.cu).
    const double linear_weights = static_cast<double>(layout_.per_layer) * m.layers + layout_.total - layout_.lm_head;
    double tokens_in = 0;
    for (const auto& r : requests_)
        tokens_in += static_cast<double>(batch) * (r.prompt_len + r.gen_tokens - 1);
    flops_ = 2.0 * linear_weights * tokens_in;
    const double scale_rows = static_cast<double>(matrices.back().first_row + matrices.back().rows);
    bytes_ = cfg.fp8_weights
        ? llm::DecodeBytes::quantised(linear_weights, scale_rows, 2, m.layers, m.kv_dim(), kv_bytes)
        : llm::DecodeBytes::of(linear_weights, 2, m.layers, m.kv_dim(), kv_bytes);
    traffic_ = llm::sequential_traffic(requests_, batch);

    // A graph per step width: the batch, or every width a continuous batch can have.
    if (cfg.graph)
        for (int seqs = cfg.poisson() ? 1 : batch; seqs <= (cfg.poisson() ? slots : batch); ++seqs)
            capture_step(seqs, stream);
}

void TinyLlm::capture_step(int seqs, cudaStream_t stream)
{
    // One eager step first: cuBLASLt picks its algorithms outside the capture.
    set_lengths<<<1, 256, 0, stream>>>(seq_len_.as<int>(), seqs, 0);
    KWB_CUDA(cudaMemsetAsync(next_.as<void>(), 0, next_.bytes(), stream));
    decode_step(seqs, stream);
    KWB_CUDA(cudaStreamSynchronize(stream));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    KWB_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    decode_step(seqs, stream);
    KWB_CUDA(cudaStreamEndCapture(stream, &graph));
    graphs_[seqs] = graph;
    KWB_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    execs_[seqs] = exec;
}

// Static per-(layer, KV head) scales for the fp8 cache: request 0's prefill measures each head's
// largest |K| and |V|; cpu/kv_fp8.h's rule (the cpu backend's too) makes them scales.
void TinyLlm::calibrate_fp8(cudaStream_t stream)
{
    alloc(amax_, kv_scale_host_.size() * 4);
    KWB_CUDA(cudaMemsetAsync(amax_.as<void>(), 0, amax_.bytes(), stream));
    prefill(prompts_.as<int>() + prompt_at_[0], requests_[0].prompt_len, cu_.as<int>(), 0, stream);
    std::vector<float> amax(kv_scale_host_.size());
    KWB_CUDA(cudaMemcpyAsync(amax.data(), amax_.as<void>(), amax_.bytes(), cudaMemcpyDeviceToHost, stream));
    KWB_CUDA(cudaStreamSynchronize(stream));
    amax_ = DeviceBuffer(); // forward() stops measuring
    allocated_ -= amax.size() * 4;
    for (std::size_t i = 0; i < amax.size(); ++i)
        kv_scale_host_[i] = llm::kv_fp8_scale(amax[i]);
    KWB_CUDA(cudaMemcpyAsync(
        kv_scale_.as<void>(), kv_scale_host_.data(), kv_scale_.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaStreamSynchronize(stream));
}

TinyLlm::~TinyLlm()
{
    for (auto ev : events_)
        cudaEventDestroy(ev);
    for (auto& [seqs, exec] : execs_)
        cudaGraphExecDestroy(exec);
    for (auto& [seqs, graph] : graphs_)
        cudaGraphDestroy(graph);
}

namespace {
// Blocks of `kernel` one wave holds on the current device (the GEMV's grid: its warps walk the
// rows). Asked once per device, kernel and shared memory size: studies may run arms on several
// GPUs (--devices), one host thread each.
int wave_blocks(const void* kernel, std::size_t smem, int cap_per_sm)
{
    static std::mutex mutex;
    static std::map<std::tuple<int, const void*, std::size_t>, std::pair<int, int>> known; // SMs, blocks per SM
    int device = 0;
    KWB_CUDA(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_tuple(device, kernel, smem);
    auto it = known.find(key);
    if (it == known.end()) {
        int per_sm = 0;
        KWB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kGemvThreads, smem));
        it = known.emplace(key, std::make_pair(current_sm_count(), std::max(1, per_sm))).first;
    }
    const auto [sms, per_sm] = it->second;
    return sms * (cap_per_sm > 0 ? std::min(per_sm, cap_per_sm) : per_sm);
}

// How a step's GEMV grid is sized: per_sm > 0 caps the wave at per_sm blocks per SM (room for the
// next kernel's blocks under PDL); balanced takes the fewest blocks that need no more rounds of
// units per warp than the full wave does, so every warp walks the same number of units and the
// slots left over are the next kernel's (gate/up: 11008 row pairs are 3 rounds of the H200's
// 4224 warps, of which the last is 61% full; 459 blocks take the 3 rounds whole).
struct GemvGrid {
    int per_sm = 0;
    bool balanced = false;
};
GemvGrid step_grid(const Config& c)
{
    return {c.gemv_blocks_per_sm, c.gemv_balanced};
}

template<int R, Epilogue E, bool Norm, typename KV, typename Wt>
void launch_gemv_rows(bool pdl, GemvGrid grid, const GemvArgs& a, cudaStream_t s)
{
    const auto kernel = gemv<R, E, Norm, KV, Wt>;
    const std::size_t smem = Norm ? static_cast<std::size_t>(a.rows) * a.k * 2 : 0;
    const int units = E == Epilogue::Rope ? a.n / 2 : a.n;
    const int wave = wave_blocks(reinterpret_cast<const void*>(kernel), smem, grid.per_sm);
    int blocks = std::min((units + kGemvWarps - 1) / kGemvWarps, wave);
    if (grid.balanced) {
        const int rounds = (units + wave * kGemvWarps - 1) / (wave * kGemvWarps);
        blocks = (units + rounds * kGemvWarps - 1) / (rounds * kGemvWarps);
    }
    launch_kernel(pdl, kernel, dim3(static_cast<unsigned>(blocks)), dim3(kGemvThreads), smem, s, a);
    KWB_CUDA_LAUNCHED("gemv");
}

template<Epilogue E, bool Norm, typename KV, typename Wt>
void launch_gemv_typed(bool pdl, GemvGrid grid, const GemvArgs& a, cudaStream_t s)
{
    if (a.rows == 1)
        launch_gemv_rows<1, E, Norm, KV, Wt>(pdl, grid, a, s);
    else if (a.rows == 2)
        launch_gemv_rows<2, E, Norm, KV, Wt>(pdl, grid, a, s);
    else if (a.rows <= 4)
        launch_gemv_rows<4, E, Norm, KV, Wt>(pdl, grid, a, s);
    else
        launch_gemv_rows<8, E, Norm, KV, Wt>(pdl, grid, a, s);
}

// The e4m3 GEMV where the arguments carry fp8 weights (TinyLlm::set_weights), else the bf16 one.
template<Epilogue E, bool Norm, typename KV = __nv_bfloat16>
void launch_gemv(bool pdl, GemvGrid grid, const GemvArgs& a, cudaStream_t s)
{
    if (a.wq)
        launch_gemv_typed<E, Norm, KV, __nv_fp8_e4m3>(pdl, grid, a, s);
    else
        launch_gemv_typed<E, Norm, KV, __nv_bfloat16>(pdl, grid, a, s);
}

// A block's bf16 input rows with the norm folded in: at most the default shared memory.
constexpr std::size_t kFusedInputBytes = 48 * 1024;
} // namespace

// With glu (GEMV only) the fused gate/up projection: `out` gets silu(gate) * up in bf16, n = glu.
void TinyLlm::linear(const __nv_bfloat16* in, int rows, std::size_t at, int n, int k, void* out, cudaStream_t s,
    bool prefill, int glu) const
{
    if (prefill && own_gemm_)
        own_gemm_->run(in, rows, at, n, k, static_cast<float*>(out), s);
    else if (gemv_serves(rows, prefill)) {
        GemvArgs a;
        a.x = in, a.y = out, a.rows = rows, a.n = glu ? glu : n, a.k = k;
        if (prefill) // a prefill reads the bf16 weights (with fp8 ones, their dequantised copy)
            a.w = w(at);
        else
            set_weights(a, at);
        if (glu)
            launch_gemv<Epilogue::Glu, false>(false, {}, a, s);
        else
            launch_gemv<Epilogue::Store, false>(false, {}, a, s);
    } else
        CublasLt::get()->gemm_bf16_wt(in, w(at), static_cast<float*>(out), rows, n, k, workspace_.as<void>(), s);
}

// rows = seqs x per tokens (per = prompt length in a prefill, 1 in a decode step) at positions
// ending at seq_len[row0 + b] - 1; leaves each sequence's last-position logits in logits_.
void TinyLlm::forward(int seqs, int per, int row0, const int* cu_seqlens, int max_len, cudaStream_t s) const
{
    if (per == 1 && !cu_seqlens && row0 == 0 && fused_step(seqs))
        return fused_forward(seqs, s);
    const auto& m = cfg_.m;
    const int batch = seqs, rows = seqs * per, h = m.hidden, hd = m.head_dim();
    const int elem = cfg_.fp8 ? 1 : 2;
    const bool prompt = per > 1 || cu_seqlens; // a prefill, not a decode step
    const std::size_t layer_pool = static_cast<std::size_t>(pages_) * m.kv_heads * cfg_.page_size * hd;
    const float scale_log2 = 1.0f / std::sqrt(static_cast<float>(hd)) * decode::kLog2e;
    for (int l = 0; l < m.layers; ++l) {
        residual_rmsnorm<__nv_bfloat16><<<rows, kNormThreads, 0, s>>>(x_.as<float>(), l ? delta_.as<float>() : nullptr,
            gain(layout_.attn_norm(l)), xn_.as<__nv_bfloat16>(), h, 1);
        linear(xn_.as<__nv_bfloat16>(), rows, layout_.qkv(l), m.qkv_width(), h, qkv_.as<float>(), s, prompt);
        char* kp = k_pool_.as<char>() + layer_pool * l * elem;
        char* vp = v_pool_.as<char>() + layer_pool * l * elem;
        const float* scales = kv_scale_.as<float>() + static_cast<std::size_t>(l) * 2 * m.kv_heads;
        const RopeArgs rope {qkv_.as<float>(), rope_.as<float2>(), seq_len_.as<int>() + row0,
            table_.as<int>() + static_cast<std::size_t>(row0) * max_pages_, q_.as<__nv_bfloat16>(),
            k_.as<__nv_bfloat16>(), v_.as<__nv_bfloat16>(), kp, vp, h, m.kv_dim(), hd, per, cfg_.page_size, max_pages_,
            scales, amax_.bytes() ? amax_.as<unsigned>() + static_cast<std::size_t>(l) * 2 * m.kv_heads : nullptr};
        const dim3 rope_grid(rows, (m.qkv_width() / 2 + 255) / 256);
        if (cfg_.fp8)
            rope_scatter<__nv_fp8_e4m3><<<rope_grid, 256, 0, s>>>(rope);
        else
            rope_scatter<__nv_bfloat16><<<rope_grid, 256, 0, s>>>(rope);
        KWB_CUDA_LAUNCHED("rope_scatter");
        if (prompt) {
            const prefill::Params p {q_.as<__nv_bfloat16>(), k_.as<__nv_bfloat16>(), v_.as<__nv_bfloat16>(),
                attn_.as<__nv_bfloat16>(), cu_seqlens, m.heads, m.kv_heads, kPrefillStages, scale_log2};
            const dim3 grid((max_len + kPrefillBM - 1) / kPrefillBM, m.heads, batch);
            prefill_kernel_<<<grid, kPrefillWarps * 32, prefill_smem_, s>>>(p);
            KWB_CUDA_LAUNCHED("prefill attention");
        } else {
            const decode::Params p {kp, vp, table_.as<int>(), seq_len_.as<int>(), q_.as<__nv_bfloat16>(), scales,
                scales + m.kv_heads, attn_.as<__nv_bfloat16>(), o_part_.as<float>(), m_part_.as<float>(),
                l_part_.as<float>(), m.kv_heads, cfg_.page_size, max_pages_, cfg_.splits, kDecodeStages, scale_log2};
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
        linear(attn_.as<__nv_bfloat16>(), rows, layout_.wo(l), h, h, delta_.as<float>(), s, prompt);
        residual_rmsnorm<__nv_bfloat16><<<rows, kNormThreads, 0, s>>>(
            x_.as<float>(), delta_.as<float>(), gain(layout_.ffn_norm(l)), xn_.as<__nv_bfloat16>(), h, 1);
        if (gemv_serves(rows, prompt))
            linear(xn_.as<__nv_bfloat16>(), rows, layout_.gate_up(l), m.ffn, h, act_.as<void>(), s, prompt, m.ffn);
        else {
            linear(xn_.as<__nv_bfloat16>(), rows, layout_.gate_up(l), 2 * m.ffn, h, gu_.as<float>(), s, prompt);
            swiglu<__nv_bfloat16><<<rows, 256, 0, s>>>(gu_.as<float>(), act_.as<__nv_bfloat16>(), m.ffn);
        }
        linear(act_.as<__nv_bfloat16>(), rows, layout_.down(l), h, m.ffn, delta_.as<float>(), s, prompt);
    }
    // Only each sequence's last position goes through the final norm and the LM head.
    residual_rmsnorm<__nv_bfloat16><<<batch, kNormThreads, 0, s>>>(
        x_.as<float>(), delta_.as<float>(), gain(layout_.final_norm()), xn_.as<__nv_bfloat16>(), h, per);
    linear(xn_.as<__nv_bfloat16>(), batch, layout_.lm_head, m.vocab, h, logits_.as<float>(), s, prompt);
    argmax_tokens<<<batch, kArgmaxThreads, 0, s>>>(logits_.as<float>(), m.vocab, next_.as<int>() + row0, nullptr, 0, 0);
    KWB_CUDA_LAUNCHED("forward");
}

bool TinyLlm::fused_step(int rows) const
{
    return cfg_.gemv && rows <= kGemvMaxRows && !amax_.bytes()
        && static_cast<std::size_t>(rows) * cfg_.m.hidden * 2 <= kFusedInputBytes;
}

// After the embedding (which also appends the step's token to the lengths, decode_step), per
// layer: QKV (norm, RoPE, K/V scatter) -> attention (-> combine) -> wo (+= residual) -> gate/up
// (norm, SwiGLU) -> down (+= residual); then the LM head (final norm; the greedy argmax in its
// epilogue). The residual stream x_ is complete after each residual GEMV, so no delta_ is left pending.
// Every kernel here, the attention and combine pair included, waits before touching what another
// kernel wrote (pdl_launch.h), so with `pdl` each is scheduled while the one before it drains.
void TinyLlm::fused_forward(int seqs, cudaStream_t s) const
{
    const auto& m = cfg_.m;
    const int h = m.hidden, hd = m.head_dim(), elem = cfg_.fp8 ? 1 : 2;
    const bool pdl = cfg_.pdl;
    const GemvGrid grid = step_grid(cfg_);
    const std::size_t layer_pool = static_cast<std::size_t>(pages_) * m.kv_heads * cfg_.page_size * hd;
    const float scale_log2 = 1.0f / std::sqrt(static_cast<float>(hd)) * decode::kLog2e;
    GemvArgs a;
    a.rows = seqs;
    for (int l = 0; l < m.layers; ++l) {
        char* kp = k_pool_.as<char>() + layer_pool * l * elem;
        char* vp = v_pool_.as<char>() + layer_pool * l * elem;
        const float* scales = kv_scale_.as<float>() + static_cast<std::size_t>(l) * 2 * m.kv_heads;
        a.x = nullptr, a.resid = x_.as<float>(), a.gain = gain(layout_.attn_norm(l));
        set_weights(a, layout_.qkv(l));
        a.y = nullptr, a.n = m.qkv_width(), a.k = h;
        a.rope = RopeArgs {nullptr, rope_.as<float2>(), seq_len_.as<int>(), table_.as<int>(), q_.as<__nv_bfloat16>(),
            k_.as<__nv_bfloat16>(), v_.as<__nv_bfloat16>(), kp, vp, h, m.kv_dim(), hd, 1, cfg_.page_size, max_pages_,
            scales, nullptr};
        if (cfg_.fp8)
            launch_gemv<Epilogue::Rope, true, __nv_fp8_e4m3>(pdl, grid, a, s);
        else
            launch_gemv<Epilogue::Rope, true>(pdl, grid, a, s);

        // early: the QKV GEMV before it writes only each sequence's newest K/V row and q.
        const decode::Params p {kp, vp, table_.as<int>(), seq_len_.as<int>(), q_.as<__nv_bfloat16>(), scales,
            scales + m.kv_heads, attn_.as<__nv_bfloat16>(), o_part_.as<float>(), m_part_.as<float>(),
            l_part_.as<float>(), m.kv_heads, cfg_.page_size, max_pages_, cfg_.splits, kDecodeStages, scale_log2,
            cfg_.early_attention};
        launch_kernel(pdl, decode_kernel_, dim3(cfg_.splits, m.kv_heads, seqs), dim3(decode::kThreads),
            static_cast<std::size_t>(decode_smem_), s, p);
        if (cfg_.splits > 1) {
            const dim3 r(static_cast<unsigned>(seqs * m.heads));
            if (hd == 128)
                launch_kernel(pdl, decode::decode_combine<128>, r, dim3(128), 0, s, p);
            else
                launch_kernel(pdl, decode::decode_combine<64>, r, dim3(64), 0, s, p);
        }
        KWB_CUDA_LAUNCHED("decode attention");

        a.x = attn_.as<__nv_bfloat16>(), a.resid = nullptr, a.gain = nullptr;
        set_weights(a, layout_.wo(l));
        a.y = x_.as<float>(), a.n = h, a.k = h;
        launch_gemv<Epilogue::Residual, false>(pdl, grid, a, s);
        a.x = nullptr, a.resid = x_.as<float>(), a.gain = gain(layout_.ffn_norm(l));
        set_weights(a, layout_.gate_up(l));
        a.y = act_.as<void>(), a.n = m.ffn, a.k = h;
        launch_gemv<Epilogue::Glu, true>(pdl, grid, a, s);
        a.x = act_.as<__nv_bfloat16>(), a.resid = nullptr, a.gain = nullptr;
        set_weights(a, layout_.down(l));
        a.y = x_.as<float>(), a.n = h, a.k = m.ffn;
        launch_gemv<Epilogue::Residual, false>(pdl, grid, a, s);
    }
    lm_head_argmax(seqs, s);
}

void TinyLlm::set_weights(GemvArgs& a, std::size_t at) const
{
    a.w = w(at);
    a.wq = nullptr, a.w_scale = nullptr;
    if (!cfg_.fp8_weights)
        return;
    a.wq = wq_.as<__nv_fp8_e4m3>() + (at - layout_.qkv(0));
    a.w_scale = wscale_.as<float>() + scale_at_.at(at);
}

// The fused step's LM head: the final norm of x_'s rows, logits_ and the greedy tokens in next_.
void TinyLlm::lm_head_argmax(int seqs, cudaStream_t s) const
{
    GemvArgs a;
    a.resid = x_.as<float>(), a.gain = gain(layout_.final_norm());
    set_weights(a, layout_.lm_head);
    a.y = logits_.as<float>(), a.rows = seqs, a.n = cfg_.m.vocab, a.k = cfg_.m.hidden;
    a.partial = argmax_partial_.as<float2>(), a.arrived = argmax_arrived_.as<unsigned>(), a.next = next_.as<int>();
    launch_gemv<Epilogue::StoreArgmax, true>(cfg_.pdl, step_grid(cfg_), a, s);
}

void TinyLlm::prefill(const int* tokens, int prompt_len, const int* cu_seqlens, int row0, cudaStream_t s) const
{
    const int batch = cfg_.sched.batch;
    set_lengths<<<1, 256, 0, s>>>(seq_len_.as<int>() + row0, batch, prompt_len);
    embed<__nv_bfloat16>
        <<<batch * prompt_len, 256, 0, s>>>(tokens, w(layout_.embedding), x_.as<float>(), cfg_.m.hidden);
    forward(batch, prompt_len, row0, cu_seqlens, prompt_len, s);
}

// The step's tokens (next_) embedded, each sequence's length grown by one on the way (embed's
// `grow`: nothing before it reads the lengths, everything after it in the step does).
void TinyLlm::decode_step(int seqs, cudaStream_t s) const
{
    launch_kernel(cfg_.pdl && fused_step(seqs), embed<__nv_bfloat16>, dim3(seqs), dim3(256), 0, s, next_.as<int>(),
        w(layout_.embedding), x_.as<float>(), cfg_.m.hidden, seq_len_.as<int>());
    KWB_CUDA_LAUNCHED("embed");
    forward(seqs, 1, 0, nullptr, 1, s);
}

} // namespace kwb::cuda::tllm

namespace kwb::cuda {

WorkloadKind tiny_llm_kind()
{
    return {tllm::kName,
        [](const nlohmann::json& p) {
            using namespace tllm;
            const Config cfg(p);
            int smem = 0;
            const auto kernel = decode_kernel_for(cfg, smem);
            return ResourceNeeds {cfg.what(), reinterpret_cast<const void*>(kernel), decode::kThreads,
                static_cast<std::size_t>(smem), {}};
        },
        [](const nlohmann::json& p, cudaStream_t stream) -> std::unique_ptr<GpuWorkload> {
            return std::make_unique<tllm::TinyLlm>(tllm::Config(p), stream);
        }};
}

} // namespace kwb::cuda
