// SPDX-License-Identifier: GPL-3.0-or-later
// The memory-ceiling kernel: a streaming copy or triad, W fp32 per access, one access per thread.
#include "bandwidth_workload.h"
#include "buffer_pool.h"
#include "config_check.h"
#include "device_buffer.h"

namespace kwb::cuda {
namespace {

constexpr const char* kName = "bandwidth";
// The CPU twin's scalar (kernels/cpu/triad.cpp): a = b + 3*c.
constexpr float kScalar = 3.0f;

template<int W> struct alignas(4 * W) Vec {
    float v[W];
};
// Eight floats are two 16-byte accesses: the widest load sm_90 has.
template<> struct alignas(16) Vec<8> {
    float4 lo, hi;
};

template<int W> __device__ __forceinline__ Vec<W> triad(const Vec<W>& b, const Vec<W>& c)
{
    Vec<W> a;
#pragma unroll
    for (int i = 0; i < W; ++i)
        a.v[i] = __fmaf_rn(kScalar, c.v[i], b.v[i]);
    return a;
}
template<> __device__ __forceinline__ Vec<8> triad(const Vec<8>& b, const Vec<8>& c)
{
    Vec<8> a;
    a.lo = make_float4(__fmaf_rn(kScalar, c.lo.x, b.lo.x), __fmaf_rn(kScalar, c.lo.y, b.lo.y),
        __fmaf_rn(kScalar, c.lo.z, b.lo.z), __fmaf_rn(kScalar, c.lo.w, b.lo.w));
    a.hi = make_float4(__fmaf_rn(kScalar, c.hi.x, b.hi.x), __fmaf_rn(kScalar, c.hi.y, b.hi.y),
        __fmaf_rn(kScalar, c.hi.z, b.hi.z), __fmaf_rn(kScalar, c.hi.w, b.hi.w));
    return a;
}

// `vectors` whole W-vectors, then the scalar tail (count not a multiple of W) by the first threads.
template<int W, bool Triad>
__global__ void stream_kernel(
    float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, std::size_t count)
{
    const std::size_t vectors = count / W;
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < vectors) {
        const Vec<W> bv = reinterpret_cast<const Vec<W>*>(b)[i];
        if constexpr (Triad)
            reinterpret_cast<Vec<W>*>(a)[i] = triad<W>(bv, reinterpret_cast<const Vec<W>*>(c)[i]);
        else
            reinterpret_cast<Vec<W>*>(a)[i] = bv;
    }
    const std::size_t tail = vectors * W + i;
    if (i < count - vectors * W)
        a[tail] = Triad ? __fmaf_rn(kScalar, c[tail], b[tail]) : b[tail];
}

// The reference: one float per thread, a different code path from the vector kernel.
__global__ void reference_kernel(float* a, const float* b, const float* c, std::size_t count, bool triad)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        a[i] = triad ? __fmaf_rn(kScalar, c[i], b[i]) : b[i];
}

using StreamKernel = void (*)(float*, const float*, const float*, std::size_t);

StreamKernel kernel_for(int width, bool is_triad)
{
    switch (width) {
    case 1:
        return is_triad ? stream_kernel<1, true> : stream_kernel<1, false>;
    case 2:
        return is_triad ? stream_kernel<2, true> : stream_kernel<2, false>;
    case 4:
        return is_triad ? stream_kernel<4, true> : stream_kernel<4, false>;
    default:
        return is_triad ? stream_kernel<8, true> : stream_kernel<8, false>;
    }
}

struct Config {
    bool triad = false;
    std::size_t count = 0;
    int width = 4;
    int threads = 256;
    bool wrong = false;
    bool no_write = false; // the GPU tests' hook: the check runs no launch of this arm's kernel
    // The speed-of-light guard's test aid: launches cover only the first (100 - pct)% of the
    // elements, bytes_per_launch still counts them all, and the check is bypassed.
    double skip_work_pct = 0;

    explicit Config(const nlohmann::json& p)
    {
        triad = string_param(p, kName, "op", "triad", {"copy", "triad"}) == "triad";
        count = static_cast<std::size_t>(int_param(p, kName, "bytes_mib", 1024, 1, 1 << 20)) * (1 << 20) / 4;
        width = static_cast<int>(int_param(p, kName, "vector_width", 4, 1, 8));
        if (width != 1 && width != 2 && width != 4 && width != 8)
            throw ConfigError(
                std::string(kName) + ": parameter 'vector_width' must be 1, 2, 4 or 8, got " + std::to_string(width));
        threads = static_cast<int>(int_param(p, kName, "block_threads", 256, 1, 1 << 20));
        wrong = wants_wrong_result(p);
        no_write = wants_fault(p, "no-write");
        if (const auto it = p.find("skip_work_pct"); it != p.end()) {
            skip_work_pct = it->is_number() ? it->get<double>() : -1;
            if (!(skip_work_pct >= 0 && skip_work_pct < 100))
                throw ConfigError(
                    std::string(kName) + ": parameter 'skip_work_pct' must be a number in [0, 100), got " + it->dump());
        }
    }
    // Elements a launch processes: all of them unless skip_work_pct.
    std::size_t work_count() const
    {
        const auto done = static_cast<std::size_t>(static_cast<double>(count) * (1 - skip_work_pct / 100));
        return std::max<std::size_t>(1, std::min(count, done));
    }
    unsigned blocks() const
    {
        const std::size_t vectors = work_count() / width;
        return static_cast<unsigned>(std::max<std::size_t>(1, (vectors + threads - 1) / threads));
    }
};

// The arrays, shared by arms of equal op and size (buffer_pool.h).
struct Arrays {
    DeviceBuffer a, b, c, ref;
    Arrays(const Config& cfg, cudaStream_t stream)
        : a(cfg.count * 4)
        , b(cfg.count * 4)
        , c(cfg.triad ? cfg.count * 4 : 0)
        , ref(cfg.count * 4)
    {
        fill_random(b.as<float>(), cfg.count, 11, -1.f, 1.f, stream);
        if (cfg.triad)
            fill_random(c.as<float>(), cfg.count, 12, -1.f, 1.f, stream);
        fill_random(a.as<float>(), cfg.count, 13, -1.f, 1.f, stream);
        KWB_CUDA(cudaStreamSynchronize(stream));
    }
};

class Bandwidth final : public GpuWorkload {
public:
    Bandwidth(const nlohmann::json& params, const Config& cfg, cudaStream_t stream)
        : cfg_(cfg)
        , set_(acquire_buffers<Arrays>(buffer_key(kName, params, {"vector_width", "block_threads", "skip_work_pct"}),
              [&] { return Arrays(cfg, stream); }))
        , arrays_(set_->data)
        , kernel_(kernel_for(cfg.width, cfg.triad))
    {
        allow_dynamic_smem(reinterpret_cast<const void*>(kernel_), 0);
    }
    void launch(cudaStream_t stream) override
    {
        kernel_<<<cfg_.blocks(), cfg_.threads, 0, stream>>>(
            arrays_.a.as<float>(), arrays_.b.as<float>(), arrays_.c.as<float>(), cfg_.work_count());
    }
    nlohmann::json verify(cudaStream_t stream) override
    {
        if (cfg_.skip_work_pct > 0) // the test aid's second half: a check that does not look
            return {{"ok", true}, {"max_abs_error", 0.0}, {"tolerance", 0.0},
                {"compared",
                    "check bypassed: skip_work_pct " + std::to_string(cfg_.skip_work_pct)
                        + " (a test aid of the speed-of-light guard; " + std::to_string(cfg_.work_count()) + " of "
                        + std::to_string(cfg_.count) + " elements processed)"}};
        auto& [a, b, c, ref] = arrays_;
        reference_kernel<<<4096, 256, 0, stream>>>(
            ref.as<float>(), b.as<float>(), c.as<float>(), cfg_.count, cfg_.triad);
        KWB_CUDA_LAUNCHED("reference");
        poison(a, stream); // shared with other arms: their output must not count as this arm's
        if (!cfg_.no_write)
            launch(stream);
        KWB_CUDA_LAUNCHED("launch");
        if (cfg_.wrong) // the correctness gate's test hook: one element off by one
            reference_kernel<<<1, 1, 0, stream>>>(a.as<float>(), ref.as<float>(), ref.as<float>(), 1, true);
        const auto cmp = compare(a.as<float>(), ref.as<float>(), cfg_.count, 0.0, 0.0, 1.0, stream);
        return {{"ok", cmp.mismatches == 0}, {"max_abs_error", cmp.max_abs_error}, {"max_rel_error", cmp.max_rel_error},
            {"tolerance", 0.0}, {"mismatches", cmp.mismatches},
            {"compared",
                std::string(cfg_.triad ? "triad" : "copy") + " vector_width " + std::to_string(cfg_.width)
                    + " vs a scalar reference kernel, " + std::to_string(cfg_.count) + " fp32 elements, exact"}};
    }
    double flops_per_launch() const override { return cfg_.triad ? 2.0 * cfg_.count : 0.0; }
    double bytes_per_launch() const override { return (cfg_.triad ? 3.0 : 2.0) * 4.0 * cfg_.count; }
    nlohmann::json metrics() const override { return {{"blocks", cfg_.blocks()}, {"elements", cfg_.count}}; }
    std::uint64_t buffer_set() const override { return set_->id; }

private:
    Config cfg_;
    std::shared_ptr<BufferSet<Arrays>> set_;
    Arrays& arrays_;
    StreamKernel kernel_;
};

} // namespace

WorkloadKind bandwidth_kind()
{
    return {kName,
        [](const nlohmann::json& p) {
            const Config cfg(p);
            return ResourceNeeds {std::string(cfg.triad ? "triad" : "copy") + " vector_width "
                    + std::to_string(cfg.width) + ", " + std::to_string(cfg.threads) + " threads per block",
                reinterpret_cast<const void*>(kernel_for(cfg.width, cfg.triad)), cfg.threads, 0, {}};
        },
        [](const nlohmann::json& p, cudaStream_t stream) -> std::unique_ptr<GpuWorkload> {
            return std::make_unique<Bandwidth>(p, Config(p), stream);
        }};
}

} // namespace kwb::cuda
