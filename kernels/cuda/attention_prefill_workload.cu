// SPDX-License-Identifier: GPL-3.0-or-later
#include "attention_prefill_kernel.cuh"
#include "attention_prefill_workload.h"
#include "buffer_pool.h"
#include "device_buffer.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kwb::cuda {
namespace {

constexpr const char* kName = "attention_prefill";
constexpr int kRefThreads = 128;
constexpr int kMaxVerifiedLen = 16384; // the reference keeps a row's scores in shared memory
using prefill::Params;

// fp32 causal attention of one (query token, head): every score of the row, an explicit
// max-subtracted softmax, then the weighted sum of V split over 128 / D key groups.
__global__ void __launch_bounds__(kRefThreads) prefill_reference(float* out, const __nv_bfloat16* q,
    const __nv_bfloat16* k, const __nv_bfloat16* v, const int* cu_seqlens, int batch, int heads, int kv_heads, int D)
{
    extern __shared__ float sc[]; // [len of the row + 1]
    __shared__ float qs[128];
    __shared__ float red[kRefThreads];
    const int token = blockIdx.x, h = blockIdx.y, tid = threadIdx.x;
    int b = 0;
    while (b + 1 < batch && cu_seqlens[b + 1] <= token)
        ++b;
    const int seq0 = cu_seqlens[b], i = token - seq0;
    const int kvh = h / (heads / kv_heads);
    const std::size_t qrow = static_cast<std::size_t>(heads) * D, kvrow = static_cast<std::size_t>(kv_heads) * D;
    if (tid < D)
        qs[tid] = __bfloat162float(q[token * qrow + h * D + tid]);
    __syncthreads();
    const float scale = 1.0f / sqrtf(static_cast<float>(D));
    float mx = -INFINITY;
    for (int j = tid; j <= i; j += kRefThreads) {
        // 16-byte loads: the reference is quadratic, so its load count decides how long a check takes.
        const auto* kr = reinterpret_cast<const uint4*>(k + (seq0 + j) * kvrow + kvh * D);
        float s = 0.f;
        for (int c = 0; c < D / 8; ++c) {
            const uint4 raw = kr[c];
            const auto* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
            for (int e = 0; e < 4; ++e) {
                const float2 f = __bfloat1622float2(pairs[e]);
                s += qs[c * 8 + 2 * e] * f.x + qs[c * 8 + 2 * e + 1] * f.y;
            }
        }
        sc[j] = s * scale;
        mx = fmaxf(mx, sc[j]);
    }
    red[tid] = mx;
    __syncthreads();
    for (int s = kRefThreads / 2; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();
    float sum = 0.f;
    for (int j = tid; j <= i; j += kRefThreads) {
        sc[j] = expf(sc[j] - mx);
        sum += sc[j];
    }
    red[tid] = sum;
    __syncthreads();
    for (int s = kRefThreads / 2; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] += red[tid + s];
        __syncthreads();
    }
    sum = red[0];
    __syncthreads();
    const int groups = kRefThreads / D, g = tid / D, d = tid % D;
    float o = 0.f;
    for (int j = g; j <= i; j += groups)
        o += sc[j] * __bfloat162float(v[(seq0 + j) * kvrow + kvh * D + d]);
    red[tid] = o;
    __syncthreads();
    if (tid < D) {
        for (int x = 1; x < groups; ++x)
            o += red[x * D + tid];
        out[token * qrow + h * D + tid] = o / sum;
    }
}

struct Config {
    int batch, heads, kv_heads, head_dim, seq_len, spread_pct, block_m, block_n, stages, warps;
    bool wrong;
    std::uint64_t seed;
    explicit Config(const nlohmann::json& p)
        : batch(static_cast<int>(int_param(p, kName, "batch", 4, 1, 1024)))
        , heads(static_cast<int>(int_param(p, kName, "heads", 32, 1, 256)))
        , kv_heads(static_cast<int>(int_param(p, kName, "kv_heads", 32, 1, 256)))
        , head_dim(static_cast<int>(int_param(p, kName, "head_dim", 128, 64, 128)))
        , seq_len(static_cast<int>(int_param(p, kName, "seq_len", 4096, 1, 1 << 20)))
        , spread_pct(static_cast<int>(int_param(p, kName, "length_spread", 0, 0, 100)))
        , block_m(static_cast<int>(int_param(p, kName, "block_m", 128, 64, 128)))
        , block_n(static_cast<int>(int_param(p, kName, "block_n", 64, 32, 128)))
        , stages(static_cast<int>(int_param(p, kName, "stages", 2, 2, 3)))
        , warps(static_cast<int>(int_param(p, kName, "warps", 8, 4, 8)))
        , wrong(wants_wrong_result(p))
        , seed(static_cast<std::uint64_t>(int_param(p, kName, "seed", 1, 0, 1LL << 40)))
    {
        const auto fail = [](const std::string& why) { throw ConfigError(std::string(kName) + ": " + why); };
        if (head_dim != 64 && head_dim != 128)
            fail("parameter 'head_dim' must be 64 or 128, got " + std::to_string(head_dim));
        if (heads % kv_heads)
            fail("heads " + std::to_string(heads) + " is not a multiple of kv_heads " + std::to_string(kv_heads));
        if (block_m != 64 && block_m != 128)
            fail("parameter 'block_m' must be 64 or 128, got " + std::to_string(block_m));
        if (block_n != 32 && block_n != 64 && block_n != 128)
            fail("parameter 'block_n' must be 32, 64 or 128, got " + std::to_string(block_n));
        if (warps != 4 && warps != 8)
            fail("parameter 'warps' must be 4 or 8, got " + std::to_string(warps));
        if (block_m < 16 * warps)
            fail("block_m " + std::to_string(block_m) + " gives a warp fewer than 16 rows with " + std::to_string(warps)
                + " warps");
        if (static_cast<double>(batch) * seq_len * heads * head_dim * 2 > 16.0 * (1ull << 30))
            fail("Q of batch x seq_len x heads x head_dim exceeds 16 GiB");
    }
    std::string what() const
    {
        return "prefill D" + std::to_string(head_dim) + " block " + std::to_string(block_m) + "x"
            + std::to_string(block_n) + ", " + std::to_string(warps) + " warps, " + std::to_string(stages) + " stages";
    }
};

using Kernel = void (*)(Params);

// The instantiation set: block_m 64 with 4 warps, block_m 128 with 8 warps (16 rows per warp) or
// 4 warps (32 rows per warp), each with block_n 32, 64, 128; null where not built.
template<int D, int BM, int WARPS> Kernel kernel_for_n(int bn)
{
    switch (bn) {
    case 32:
        return prefill::prefill_kernel<D, BM, 32, WARPS>;
    case 64:
        return prefill::prefill_kernel<D, BM, 64, WARPS>;
    default:
        return prefill::prefill_kernel<D, BM, 128, WARPS>;
    }
}
template<int D> Kernel kernel_for_d(const Config& c)
{
    if (c.block_m == 64)
        return c.warps == 4 ? kernel_for_n<D, 64, 4>(c.block_n) : nullptr;
    return c.warps == 8 ? kernel_for_n<D, 128, 8>(c.block_n) : kernel_for_n<D, 128, 4>(c.block_n);
}
Kernel kernel_for(const Config& c)
{
    return c.head_dim == 128 ? kernel_for_d<128>(c) : kernel_for_d<64>(c);
}
std::size_t smem_for(const Config& c)
{
    return static_cast<std::size_t>(c.block_m + 2 * c.block_n * c.stages) * (c.head_dim + 8) * 2;
}

// Q, K, V, O and the sequence offsets, shared by arms of equal shape and seed (buffer_pool.h).
struct Tensors {
    DeviceBuffer q, k, v, o, cu;
    Tensors(const Config& cfg, int tokens, const std::vector<int>& offsets, cudaStream_t stream)
        : q(static_cast<std::size_t>(tokens) * cfg.heads * cfg.head_dim * 2)
        , k(static_cast<std::size_t>(tokens) * cfg.kv_heads * cfg.head_dim * 2)
        , v(k.bytes())
        , o(q.bytes())
        , cu(offsets.size() * sizeof(int))
    {
        KWB_CUDA(cudaMemcpyAsync(cu.as<void>(), offsets.data(), cu.bytes(), cudaMemcpyHostToDevice, stream));
        // Q and K in [-2, 2): scores of a few units, so the softmax is peaked and the running-max
        // rescale matters (as in the CPU twin).
        const std::size_t qn = q.bytes() / 2, kn = k.bytes() / 2;
        fill_random(q.as<__nv_bfloat16>(), qn, cfg.seed + 41, -2.f, 2.f, stream);
        fill_random(k.as<__nv_bfloat16>(), kn, cfg.seed + 42, -2.f, 2.f, stream);
        fill_random(v.as<__nv_bfloat16>(), kn, cfg.seed + 43, -1.f, 1.f, stream);
        fill_random(o.as<__nv_bfloat16>(), qn, cfg.seed + 44, -1.f, 1.f, stream);
        KWB_CUDA(cudaStreamSynchronize(stream));
    }
};

class AttentionPrefill final : public GpuWorkload {
public:
    AttentionPrefill(const nlohmann::json& params, const Config& cfg, cudaStream_t stream)
        : cfg_(cfg)
        , kernel_(kernel_for(cfg))
    {
        std::uint64_t state = cfg.seed;
        const auto next = [&state] {
            std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            return z ^ (z >> 31);
        };
        const int shortest = std::max(1, static_cast<int>(std::ceil(cfg.seq_len * (1.0 - cfg.spread_pct / 100.0))));
        cu_.push_back(0);
        for (int b = 0; b < cfg.batch; ++b) {
            const int len = shortest + static_cast<int>(next() % (cfg.seq_len - shortest + 1));
            lens_.push_back(len);
            cu_.push_back(cu_.back() + len);
            pairs_ += static_cast<double>(len) * (len + 1) / 2.0;
        }
        max_len_ = *std::max_element(lens_.begin(), lens_.end());
        tokens_ = cu_.back();
        set_ = acquire_buffers<Tensors>(buffer_key(kName, params, {"block_m", "block_n", "stages", "warps"}),
            [&] { return Tensors(cfg, tokens_, cu_, stream); });
        p_ = Params {tensors().q.as<__nv_bfloat16>(), tensors().k.as<__nv_bfloat16>(), tensors().v.as<__nv_bfloat16>(),
            tensors().o.as<__nv_bfloat16>(), tensors().cu.as<int>(), cfg.heads, cfg.kv_heads, cfg.stages,
            1.0f / std::sqrt(static_cast<float>(cfg.head_dim)) * 1.4426950408889634f};
    }

    void launch(cudaStream_t stream) override
    {
        const dim3 grid((max_len_ + cfg_.block_m - 1) / cfg_.block_m, cfg_.heads, cfg_.batch);
        kernel_<<<grid, cfg_.warps * 32, smem_for(cfg_), stream>>>(p_);
    }

    nlohmann::json verify(cudaStream_t stream) override
    {
        if (max_len_ > kMaxVerifiedLen)
            return {{"ok", false},
                {"error",
                    std::string(kName) + ": the reference checks sequences up to " + std::to_string(kMaxVerifiedLen)
                        + " tokens; the longest is " + std::to_string(max_len_)}};
        DeviceBuffer ref(tensors().q.bytes() * 2);
        const int ref_smem = (max_len_ + 1) * 4;
        KWB_CUDA(cudaFuncSetAttribute(prefill_reference, cudaFuncAttributeMaxDynamicSharedMemorySize, ref_smem));
        prefill_reference<<<dim3(tokens_, cfg_.heads), kRefThreads, ref_smem, stream>>>(ref.as<float>(),
            tensors().q.as<__nv_bfloat16>(), tensors().k.as<__nv_bfloat16>(), tensors().v.as<__nv_bfloat16>(),
            tensors().cu.as<int>(), cfg_.batch, cfg_.heads, cfg_.kv_heads, cfg_.head_dim);
        KWB_CUDA_LAUNCHED("reference");
        poison(tensors().o, stream); // shared with other arms: their output must not count as this arm's
        launch(stream);
        KWB_CUDA_LAUNCHED("launch");
        if (cfg_.wrong) // the correctness gate's test hook: the first token's heads from V's first row
            KWB_CUDA(cudaMemcpyAsync(tensors().o.as<void>(), tensors().q.as<void>(), cfg_.heads * cfg_.head_dim * 2,
                cudaMemcpyDeviceToDevice, stream));
        // P enters the P V product rounded to bf16 (2^-9 relative per weight; at most 2^-9 of
        // max |v| = 1 on the output, far less once many keys average), then one bf16 rounding of
        // the output: 2e-3 absolute plus 2^-7 relative.
        constexpr double kAtol = 2e-3, kRtol = 1.0 / 128;
        const auto cmp = compare(
            tensors().o.as<__nv_bfloat16>(), ref.as<float>(), tensors().q.bytes() / 2, kAtol, kRtol, 1e-3, stream);
        return {{"ok", cmp.mismatches == 0}, {"max_abs_error", cmp.max_abs_error}, {"max_rel_error", cmp.max_rel_error},
            {"tolerance", kAtol}, {"mismatches", cmp.mismatches},
            {"compared",
                "bf16 causal varlen prefill (" + std::to_string(cfg_.batch) + " sequences, " + std::to_string(tokens_)
                    + " tokens) vs an fp32 reference kernel; |o - ref| <= 2e-3 + 2^-7 * max(|ref|, 1e-3)"}};
    }

    // Two matrix products over the causal half (keys <= query): 4 * D per (query, key) pair.
    double flops_per_launch() const override { return 4.0 * pairs_ * cfg_.heads * cfg_.head_dim; }
    // Q, K and V read once and O written once (the compulsory traffic).
    double bytes_per_launch() const override
    {
        return static_cast<double>(tokens_) * cfg_.head_dim * 2 * (2.0 * cfg_.heads + 2.0 * cfg_.kv_heads);
    }
    nlohmann::json metrics() const override
    {
        return {{"tokens", tokens_}, {"max_seq_len", max_len_},
            {"blocks", static_cast<long long>((max_len_ + cfg_.block_m - 1) / cfg_.block_m) * cfg_.heads * cfg_.batch}};
    }

    std::uint64_t buffer_set() const override { return set_->id; }

private:
    Config cfg_;
    Kernel kernel_;
    std::vector<int> lens_, cu_;
    int max_len_ = 0, tokens_ = 0;
    double pairs_ = 0;
    std::shared_ptr<BufferSet<Tensors>> set_;
    Params p_ {};

    Tensors& tensors() const { return set_->data; }
};

} // namespace

WorkloadKind attention_prefill_kind()
{
    return {kName,
        [](const nlohmann::json& p) {
            const Config cfg(p);
            const Kernel k = kernel_for(cfg);
            return ResourceNeeds {cfg.what(), reinterpret_cast<const void*>(k), cfg.warps * 32, smem_for(cfg),
                k ? std::string() : cfg.what() + " is not in this build's instantiation set"};
        },
        [](const nlohmann::json& p, cudaStream_t stream) -> std::unique_ptr<GpuWorkload> {
            return std::make_unique<AttentionPrefill>(p, Config(p), stream);
        }};
}

} // namespace kwb::cuda
