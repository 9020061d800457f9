// SPDX-License-Identifier: GPL-3.0-or-later
#include "attention_decode_select.cuh"
#include "attention_decode_workload.h"
#include "buffer_pool.h"
#include "device_buffer.h"
#include "device_query.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace kwb::cuda {
namespace {

constexpr const char* kName = "attention_decode";
using decode::Params;

std::uint64_t splitmix(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The per-KV-head scale of an fp8 cache: distinct per head, so a head mix-up shows.
__host__ __device__ inline float fp8_scale(int head, int which)
{
    return (1.0f + 0.25f * ((head + which) % 4)) / 448.0f;
}

__device__ __forceinline__ float hash_uniform(std::uint64_t seed, std::uint64_t i)
{
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return -1.0f + 2.0f * static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

template<typename T> __device__ __forceinline__ T quantize(float v);
template<> __device__ __forceinline__ __nv_bfloat16 quantize(float v)
{
    return __float2bfloat16(v);
}
template<> __device__ __forceinline__ __nv_fp8_e4m3 quantize(float v)
{
    return __nv_fp8_e4m3(v);
}
__device__ __forceinline__ float dequantize(__nv_bfloat16 v)
{
    return __bfloat162float(v);
}
__device__ __forceinline__ float dequantize(__nv_fp8_e4m3 v)
{
    return static_cast<float>(v);
}

// Writes the logical cache value of (sequence, kv head, token, dim), a hash of those
// coordinates, into its page; with `ref` also its dequantised value into the unpaged fp32 cache
// [batch][kv_heads][max_len][D] that the reference reads.
template<typename T>
__global__ void fill_cache(T* pool, float* ref, const int* page_table, const int* seq_len, std::uint64_t seed,
    int kv_heads, int page_size, int max_pages, int max_len, int D, int which)
{
    const int b = blockIdx.z, h = blockIdx.y;
    const int len = seq_len[b];
    const float scale = sizeof(T) == 1 ? fp8_scale(h, which) : 1.0f;
    const std::size_t logical = (static_cast<std::size_t>(b) * kv_heads + h) * max_len;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < std::size_t(len) * D;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int t = static_cast<int>(i / D), d = static_cast<int>(i % D);
        const T stored = quantize<T>(hash_uniform(seed, logical * D + i) / scale);
        const int page = page_table[static_cast<std::size_t>(b) * max_pages + t / page_size];
        pool[((static_cast<std::size_t>(page) * kv_heads + h) * page_size + t % page_size) * D + d] = stored;
        if (ref)
            ref[logical * D + i] = dequantize(stored) * scale;
    }
}

// fp32 attention of one (sequence, head) over the unpaged cache: scores into `scores`, an
// explicit max-subtracted softmax, then P V split over 256 / D token groups.
__global__ void __launch_bounds__(256) decode_reference(float* out, float* scores, const float* kref, const float* vref,
    const __nv_bfloat16* q, const int* seq_len, int heads, int kv_heads, int max_len, int D)
{
    __shared__ float qs[128];
    __shared__ float red[256];
    const int h = blockIdx.x, b = blockIdx.y, tid = threadIdx.x;
    const int kvh = h / (heads / kv_heads);
    const int len = seq_len[b];
    const std::size_t row = static_cast<std::size_t>(b) * heads + h;
    const float* K = kref + (static_cast<std::size_t>(b) * kv_heads + kvh) * max_len * D;
    const float* V = vref + (static_cast<std::size_t>(b) * kv_heads + kvh) * max_len * D;
    float* sc = scores + row * max_len;
    if (tid < D)
        qs[tid] = __bfloat162float(q[row * D + tid]);
    __syncthreads();
    const float scale = 1.0f / sqrtf(static_cast<float>(D));
    float mx = -INFINITY;
    for (int t = tid; t < len; t += 256) {
        float s = 0.f;
        for (int d = 0; d < D; ++d)
            s += qs[d] * K[static_cast<std::size_t>(t) * D + d];
        sc[t] = s * scale;
        mx = fmaxf(mx, sc[t]);
    }
    red[tid] = mx;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();
    float sum = 0.f;
    for (int t = tid; t < len; t += 256) {
        const float e = expf(sc[t] - mx);
        sc[t] = e;
        sum += e;
    }
    red[tid] = sum;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] += red[tid + s];
        __syncthreads();
    }
    sum = red[0];
    __syncthreads();
    const int groups = 256 / D, g = tid / D, d = tid % D;
    float o = 0.f;
    for (int t = g; t < len; t += groups)
        o += sc[t] * V[static_cast<std::size_t>(t) * D + d];
    red[tid] = o;
    __syncthreads();
    if (tid < D) {
        for (int k = 1; k < groups; ++k)
            o += red[k * D + tid];
        out[row * D + tid] = o / sum;
    }
}

// The check of `early` (Params): a writer kernel before the attention that, like tiny_llm's QKV
// GEMV, writes each sequence's newest K and V row, but late: it lets the attention start at once
// (PDL), spins, then writes. stash_newest first saves those rows and overwrites them with 3.0
// (bf16 0x4040, fp8 0x40 = 2.0): an attention that kept its early copy of the row attends to those.
constexpr unsigned char kStaleByte = 0x40;
// Byte offset of sequence b's newest row of KV head kvh in a pool of [page][kv_head][page_size][row].
__device__ __forceinline__ std::size_t newest_row_at(
    const int* table, const int* len, int b, int kvh, int kv_heads, int page_size, int max_pages, int row_bytes)
{
    const int pos = len[b] - 1;
    const std::size_t head_bytes = static_cast<std::size_t>(page_size) * row_bytes;
    return static_cast<std::size_t>(table[b * max_pages + pos / page_size]) * head_bytes * kv_heads + head_bytes * kvh
        + static_cast<std::size_t>(pos % page_size) * row_bytes;
}
__global__ void stash_newest(unsigned char* k_pool, unsigned char* v_pool, unsigned char* saved, const int* table,
    const int* len, int kv_heads, int page_size, int max_pages, int row_bytes)
{
    const int kvh = blockIdx.x, b = blockIdx.y;
    const std::size_t at = newest_row_at(table, len, b, kvh, kv_heads, page_size, max_pages, row_bytes);
    unsigned char* keep = saved + (static_cast<std::size_t>(b) * kv_heads + kvh) * 2 * row_bytes;
    for (int i = threadIdx.x; i < row_bytes; i += blockDim.x) {
        keep[i] = k_pool[at + i], keep[row_bytes + i] = v_pool[at + i];
        k_pool[at + i] = v_pool[at + i] = kStaleByte;
    }
}
__global__ void restore_newest_late(unsigned char* k_pool, unsigned char* v_pool, const unsigned char* saved,
    const int* table, const int* len, int kv_heads, int page_size, int max_pages, int row_bytes)
{
    pdl_trigger();
    const long long until = clock64() + 200000; // about 100 us at 2 GHz: the attention's blocks start meanwhile
    while (clock64() < until) { }
    const int kvh = blockIdx.x, b = blockIdx.y;
    const std::size_t at = newest_row_at(table, len, b, kvh, kv_heads, page_size, max_pages, row_bytes);
    const unsigned char* keep = saved + (static_cast<std::size_t>(b) * kv_heads + kvh) * 2 * row_bytes;
    for (int i = threadIdx.x; i < row_bytes; i += blockDim.x)
        k_pool[at + i] = keep[i], v_pool[at + i] = keep[row_bytes + i];
}

struct Config {
    int batch, heads, kv_heads, head_dim, context, spread_pct, page_size, splits, stages;
    bool fp8, mma, pdl, early, wrong, ordered;
    std::uint64_t seed;
    explicit Config(const nlohmann::json& p)
        : batch(static_cast<int>(int_param(p, kName, "batch", 16, 1, 4096)))
        , heads(static_cast<int>(int_param(p, kName, "heads", 32, 1, 256)))
        , kv_heads(static_cast<int>(int_param(p, kName, "kv_heads", 8, 1, 256)))
        , head_dim(static_cast<int>(int_param(p, kName, "head_dim", 128, 64, 128)))
        , context(static_cast<int>(int_param(p, kName, "context", 4096, 1, 1 << 20)))
        , spread_pct(static_cast<int>(int_param(p, kName, "length_spread", 50, 0, 100)))
        , page_size(static_cast<int>(int_param(p, kName, "page_size", 16, 16, 128)))
        , splits(static_cast<int>(int_param(p, kName, "splits", 1, 0, decode::kMaxSplits))) // 0: auto
        , stages(static_cast<int>(int_param(p, kName, "stages", 3, 2, decode::kMaxStages)))
        , fp8(string_param(p, kName, "kv_dtype", "bf16", {"bf16", "fp8"}) == "fp8")
        , mma(string_param(p, kName, "impl", "simt", {"simt", "mma"}) == "mma")
        , pdl(int_param(p, kName, "pdl", 1, 0, 1) == 1)
        , early(int_param(p, kName, "early", 0, 0, 1) == 1)
        , wrong(wants_wrong_result(p))
        , ordered(string_param(p, kName, "page_order", "shuffled", {"shuffled", "ordered"}) == "ordered")
        , seed(static_cast<std::uint64_t>(int_param(p, kName, "seed", 1, 0, 1LL << 40)))
    {
        const auto fail = [](const std::string& why) { throw ConfigError(std::string(kName) + ": " + why); };
        if (head_dim != 64 && head_dim != 128)
            fail("parameter 'head_dim' must be 64 or 128, got " + std::to_string(head_dim));
        if (page_size != 16 && page_size != 32 && page_size != 64 && page_size != 128)
            fail("parameter 'page_size' must be 16, 32, 64 or 128, got " + std::to_string(page_size));
        if (heads % kv_heads)
            fail("heads " + std::to_string(heads) + " is not a multiple of kv_heads " + std::to_string(kv_heads));
        const int g = heads / kv_heads;
        if (g != 1 && g != 2 && g != 4 && g != 8)
            fail("heads / kv_heads must be 1, 2, 4 or 8, got " + std::to_string(g));
        if (mma && fp8)
            fail("impl mma reads a bf16 cache; kv_dtype fp8 runs on impl simt");
        if (static_cast<double>(batch) * kv_heads * context * head_dim * 2 > 48.0 * (1ull << 30))
            fail("the KV cache of batch x kv_heads x context x head_dim exceeds 48 GiB");
    }
    int group() const { return heads / kv_heads; }
    int elem_bytes() const { return fp8 ? 1 : 2; }
    std::string what() const
    {
        return std::string(mma ? "mma " : "") + "decode D" + std::to_string(head_dim) + " G" + std::to_string(group())
            + (fp8 ? " fp8" : " bf16") + ", " + std::to_string(stages) + " stages" + (pdl ? "" : ", plain launch")
            + (early ? ", early start" : "");
    }
};

using decode::Kernel;
decode::Selected kernel_for(const Config& c)
{
    return decode::select_kernel(c.mma, c.fp8, c.head_dim, c.group(), c.stages);
}

// The paged cache, its table and lengths, Q and O, shared by arms of equal data (buffer_pool.h);
// the split-KV partials stay each arm's own (their size depends on `splits`).
struct Cache {
    DeviceBuffer k, v, table, len, q, out, k_scale, v_scale;
};

class AttentionDecode final : public GpuWorkload {
public:
    AttentionDecode(const nlohmann::json& params, const Config& cfg, cudaStream_t stream)
        : cfg_(cfg)
        , chosen_(kernel_for(cfg))
    {
        // Context lengths, then each sequence's pages drawn from one pool, shuffled unless `page_order`
        // is ordered.
        std::uint64_t state = cfg.seed;
        const int shortest = std::max(1, static_cast<int>(std::ceil(cfg.context * (1.0 - cfg.spread_pct / 100.0))));
        for (int b = 0; b < cfg.batch; ++b)
            lens_.push_back(shortest + static_cast<int>(splitmix(state) % (cfg.context - shortest + 1)));
        max_len_ = *std::max_element(lens_.begin(), lens_.end());
        max_pages_ = (max_len_ + cfg.page_size - 1) / cfg.page_size;
        if (cfg_.splits == 0)
            cfg_.splits
                = decode::auto_splits(cfg.batch, cfg.kv_heads, max_pages_ * cfg.page_size, current_sm_count(), 2);
        int pages = 0;
        for (int len : lens_)
            pages += (len + cfg.page_size - 1) / cfg.page_size;
        std::vector<int> pool(pages);
        std::iota(pool.begin(), pool.end(), 0);
        for (int i = pages - 1; i > 0 && !cfg.ordered; --i)
            std::swap(pool[i], pool[splitmix(state) % (i + 1)]);
        std::vector<int> table(static_cast<std::size_t>(cfg.batch) * max_pages_, -1);
        int next = 0;
        for (int b = 0; b < cfg.batch; ++b)
            for (int j = 0; j < (lens_[b] + cfg.page_size - 1) / cfg.page_size; ++j)
                table[static_cast<std::size_t>(b) * max_pages_ + j] = pool[next++];
        tokens_ = std::accumulate(lens_.begin(), lens_.end(), 0.0);
        pages_ = pages;

        const std::size_t pool_bytes
            = static_cast<std::size_t>(pages) * cfg.kv_heads * cfg.page_size * cfg.head_dim * cfg.elem_bytes();
        set_ = acquire_buffers<Cache>(buffer_key(kName, params, {"stages", "impl", "splits", "pdl", "early"}), [&] {
            Cache c {DeviceBuffer(pool_bytes), DeviceBuffer(pool_bytes), DeviceBuffer(table.size() * sizeof(int)),
                DeviceBuffer(lens_.size() * sizeof(int)), DeviceBuffer(rows() * cfg.head_dim * 2),
                DeviceBuffer(rows() * cfg.head_dim * 2), DeviceBuffer(cfg.kv_heads * 4),
                DeviceBuffer(cfg.kv_heads * 4)};
            std::vector<float> ks(cfg.kv_heads, 1.f), vs(cfg.kv_heads, 1.f);
            if (cfg.fp8)
                for (int h = 0; h < cfg.kv_heads; ++h)
                    ks[h] = fp8_scale(h, 0), vs[h] = fp8_scale(h, 1);
            KWB_CUDA(
                cudaMemcpyAsync(c.table.as<void>(), table.data(), c.table.bytes(), cudaMemcpyHostToDevice, stream));
            KWB_CUDA(cudaMemcpyAsync(c.len.as<void>(), lens_.data(), c.len.bytes(), cudaMemcpyHostToDevice, stream));
            KWB_CUDA(
                cudaMemcpyAsync(c.k_scale.as<void>(), ks.data(), c.k_scale.bytes(), cudaMemcpyHostToDevice, stream));
            KWB_CUDA(
                cudaMemcpyAsync(c.v_scale.as<void>(), vs.data(), c.v_scale.bytes(), cudaMemcpyHostToDevice, stream));
            fill_random(c.q.as<__nv_bfloat16>(), rows() * cfg.head_dim, cfg.seed + 31, -2.f, 2.f, stream);
            fill(c, nullptr, nullptr, stream);
            KWB_CUDA(cudaStreamSynchronize(stream)); // the host vectors above go out of scope
            return c;
        });
        if (cfg_.splits > 1) {
            o_part_ = DeviceBuffer(rows() * cfg_.splits * cfg.head_dim * 4);
            m_part_ = DeviceBuffer(rows() * cfg_.splits * 4);
            l_part_ = DeviceBuffer(rows() * cfg_.splits * 4);
        }
        const Cache& c = cache();
        p_ = Params {c.k.as<void>(), c.v.as<void>(), c.table.as<int>(), c.len.as<int>(), c.q.as<__nv_bfloat16>(),
            c.k_scale.as<float>(), c.v_scale.as<float>(), c.out.as<__nv_bfloat16>(), o_part_.as<float>(),
            m_part_.as<float>(), l_part_.as<float>(), cfg.kv_heads, cfg.page_size, max_pages_, cfg_.splits, cfg.stages,
            1.0f / std::sqrt(static_cast<float>(cfg.head_dim)) * decode::kLog2e, cfg.early ? 1 : 0};
    }

    void launch(cudaStream_t stream) override
    {
        start(chosen_.kernel, dim3(cfg_.splits, cfg_.kv_heads, cfg_.batch), decode::kThreads, chosen_.smem, stream);
        if (cfg_.splits > 1) {
            const dim3 grid(static_cast<unsigned>(rows()));
            if (cfg_.head_dim == 128)
                start(decode::decode_combine<128>, grid, 128, 0, stream);
            else
                start(decode::decode_combine<64>, grid, 64, 0, stream);
        }
    }

    nlohmann::json verify(cudaStream_t stream) override
    {
        // The unpaged fp32 cache exists only during the check.
        const std::size_t ref_elems = static_cast<std::size_t>(cfg_.batch) * cfg_.kv_heads * max_len_ * cfg_.head_dim;
        DeviceBuffer kref(ref_elems * 4), vref(ref_elems * 4), scores(rows() * max_len_ * 4),
            ref(rows() * cfg_.head_dim * 4);
        fill(cache(), kref.as<float>(), vref.as<float>(), stream); // rewrites the shared cache with its own values
        decode_reference<<<dim3(cfg_.heads, cfg_.batch), 256, 0, stream>>>(ref.as<float>(), scores.as<float>(),
            kref.as<float>(), vref.as<float>(), cache().q.as<__nv_bfloat16>(), cache().len.as<int>(), cfg_.heads,
            cfg_.kv_heads, max_len_, cfg_.head_dim);
        KWB_CUDA_LAUNCHED("reference");
        poison(cache().out, stream); // shared with other arms: their output must not count as this arm's
        if (cfg_.splits > 1)
            poison(o_part_, stream);
        DeviceBuffer saved;
        if (cfg_.early) { // the newest rows go stale, then a late writer restores them as the attention starts
            const int row_bytes = cfg_.head_dim * cfg_.elem_bytes();
            saved = DeviceBuffer(static_cast<std::size_t>(cfg_.batch) * cfg_.kv_heads * 2 * row_bytes);
            const dim3 grid(cfg_.kv_heads, cfg_.batch);
            stash_newest<<<grid, 128, 0, stream>>>(cache().k.as<unsigned char>(), cache().v.as<unsigned char>(),
                saved.as<unsigned char>(), cache().table.as<int>(), cache().len.as<int>(), cfg_.kv_heads,
                cfg_.page_size, max_pages_, row_bytes);
            restore_newest_late<<<grid, 128, 0, stream>>>(cache().k.as<unsigned char>(), cache().v.as<unsigned char>(),
                saved.as<unsigned char>(), cache().table.as<int>(), cache().len.as<int>(), cfg_.kv_heads,
                cfg_.page_size, max_pages_, row_bytes);
            KWB_CUDA_LAUNCHED("late writer");
        }
        launch(stream);
        KWB_CUDA_LAUNCHED("launch");
        if (cfg_.wrong) // the correctness gate's test hook: sequence 0's output from its query
            KWB_CUDA(cudaMemcpyAsync(cache().out.as<void>(), cache().q.as<void>(), cfg_.heads * cfg_.head_dim * 2,
                cudaMemcpyDeviceToDevice, stream));
        // Outputs are convex combinations of V in [-1, 1], often small (long contexts average
        // many values): the bound is one bf16 rounding of the output with 4x margin (2^-7
        // relative) plus 2e-5 for the difference in fp32 summation order.
        constexpr double kAtol = 2e-5, kRtol = 1.0 / 128;
        const auto cmp = compare(
            cache().out.as<__nv_bfloat16>(), ref.as<float>(), rows() * cfg_.head_dim, kAtol, kRtol, 1e-3, stream);
        return {{"ok", cmp.mismatches == 0}, {"max_abs_error", cmp.max_abs_error}, {"max_rel_error", cmp.max_rel_error},
            {"tolerance", kAtol}, {"mismatches", cmp.mismatches},
            {"compared",
                "bf16 paged decode attention (" + std::to_string(cfg_.batch) + " sequences, " + std::to_string(pages_)
                    + (cfg_.ordered ? " pages in order" : " shuffled pages")
                    + ") vs an fp32 reference kernel over the unpaged cache; |o - ref| <= 2e-5 + "
                      "2^-7 * max(|ref|, 1e-3)"}};
    }

    double flops_per_launch() const override { return 4.0 * tokens_ * cfg_.heads * cfg_.head_dim; }
    double bytes_per_launch() const override
    {
        return 2.0 * tokens_ * cfg_.kv_heads * cfg_.head_dim * cfg_.elem_bytes();
    }
    nlohmann::json metrics() const override
    {
        return {{"blocks", cfg_.splits * cfg_.kv_heads * cfg_.batch}, {"splits", cfg_.splits},
            {"mean_context", tokens_ / cfg_.batch}, {"max_context", max_len_}, {"pages", pages_}};
    }

    std::uint64_t buffer_set() const override { return set_->id; }

private:
    Cache& cache() const { return set_->data; }
    // With `pdl` each kernel may be scheduled while the one before it in the stream drains (the
    // kernels wait for it before reading anything: pdl_launch.h), which hides the launch gaps of
    // the attention and combine pair.
    void start(Kernel k, dim3 grid, unsigned threads, int smem, cudaStream_t stream) const
    {
        launch_kernel(cfg_.pdl, k, grid, dim3(threads), static_cast<std::size_t>(smem), stream, p_);
    }
    std::size_t rows() const { return static_cast<std::size_t>(cfg_.batch) * cfg_.heads; }

    void fill(const Cache& c, float* kref, float* vref, cudaStream_t stream) const
    {
        const dim3 grid(std::max(1, std::min(64, max_len_ * cfg_.head_dim / 256)), cfg_.kv_heads, cfg_.batch);
        if (cfg_.fp8) {
            fill_cache<<<grid, 256, 0, stream>>>(c.k.as<__nv_fp8_e4m3>(), kref, c.table.as<int>(), c.len.as<int>(),
                cfg_.seed + 11, cfg_.kv_heads, cfg_.page_size, max_pages_, max_len_, cfg_.head_dim, 0);
            fill_cache<<<grid, 256, 0, stream>>>(c.v.as<__nv_fp8_e4m3>(), vref, c.table.as<int>(), c.len.as<int>(),
                cfg_.seed + 12, cfg_.kv_heads, cfg_.page_size, max_pages_, max_len_, cfg_.head_dim, 1);
        } else {
            fill_cache<<<grid, 256, 0, stream>>>(c.k.as<__nv_bfloat16>(), kref, c.table.as<int>(), c.len.as<int>(),
                cfg_.seed + 11, cfg_.kv_heads, cfg_.page_size, max_pages_, max_len_, cfg_.head_dim, 0);
            fill_cache<<<grid, 256, 0, stream>>>(c.v.as<__nv_bfloat16>(), vref, c.table.as<int>(), c.len.as<int>(),
                cfg_.seed + 12, cfg_.kv_heads, cfg_.page_size, max_pages_, max_len_, cfg_.head_dim, 1);
        }
        KWB_CUDA_LAUNCHED("fill_cache");
    }

    Config cfg_;
    decode::Selected chosen_; // the kernel instance and its dynamic shared memory
    std::vector<int> lens_;
    int max_len_ = 0, max_pages_ = 0, pages_ = 0;
    double tokens_ = 0;
    std::shared_ptr<BufferSet<Cache>> set_;
    DeviceBuffer o_part_, m_part_, l_part_;
    Params p_ {};
};

} // namespace

WorkloadKind attention_decode_kind()
{
    return {kName,
        [](const nlohmann::json& p) {
            const Config cfg(p);
            const auto chosen = kernel_for(cfg);
            return ResourceNeeds {cfg.what(), reinterpret_cast<const void*>(chosen.kernel), decode::kThreads,
                static_cast<std::size_t>(chosen.smem), {}};
        },
        [](const nlohmann::json& p, cudaStream_t stream) -> std::unique_ptr<GpuWorkload> {
            return std::make_unique<AttentionDecode>(p, Config(p), stream);
        }};
}

} // namespace kwb::cuda
