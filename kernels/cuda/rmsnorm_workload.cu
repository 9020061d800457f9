// SPDX-License-Identifier: GPL-3.0-or-later
#include "buffer_pool.h"
#include "config_check.h"
#include "device_buffer.h"
#include "rmsnorm_workload.h"

namespace kwb::cuda {
namespace {

constexpr const char* kName = "rmsnorm";
constexpr float kEps = 1e-6f;
constexpr int kThreads = 256;

template<int W> struct alignas(2 * W) Pack {
    __nv_bfloat16 v[W];
};

// Each group of kThreads / R threads normalises one row: a strided pass of W-wide loads sums the
// squares (warp shuffles, then one shared slot per warp), a second pass scales and writes.
template<int W, int R>
__global__ void __launch_bounds__(kThreads) rmsnorm_kernel(__nv_bfloat16* __restrict__ y,
    const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w, int rows, int hidden)
{
    constexpr int kGroup = kThreads / R;
    constexpr int kWarpsPerGroup = kGroup / 32 > 0 ? kGroup / 32 : 1;
    __shared__ float partial[kThreads / 32];
    const int group = threadIdx.x / kGroup;
    const int t = threadIdx.x % kGroup;
    const int row = blockIdx.x * R + group;
    const bool active = row < rows;
    const auto* xr = reinterpret_cast<const Pack<W>*>(x + static_cast<std::size_t>(active ? row : 0) * hidden);
    const auto* wv = reinterpret_cast<const Pack<W>*>(w);
    const int packs = hidden / W;

    float sum = 0.f;
    if (active)
        for (int p = t; p < packs; p += kGroup) {
            const Pack<W> v = xr[p];
#pragma unroll
            for (int i = 0; i < W; ++i) {
                const float f = __bfloat162float(v.v[i]);
                sum = fmaf(f, f, sum);
            }
        }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (threadIdx.x % 32 == 0)
        partial[threadIdx.x / 32] = sum;
    __syncthreads();
    float total = 0.f;
    for (int i = 0; i < kWarpsPerGroup; ++i)
        total += partial[group * kWarpsPerGroup + i];
    if (!active)
        return;
    const float scale = rsqrtf(total / hidden + kEps);
    auto* yr = reinterpret_cast<Pack<W>*>(y + static_cast<std::size_t>(row) * hidden);
    for (int p = t; p < packs; p += kGroup) {
        const Pack<W> v = xr[p];
        const Pack<W> g = wv[p];
        Pack<W> out;
#pragma unroll
        for (int i = 0; i < W; ++i)
            out.v[i] = __float2bfloat16(__bfloat162float(v.v[i]) * scale * __bfloat162float(g.v[i]));
        yr[p] = out;
    }
}

// fp32 reference: one block per row, scalar loads, a shared-memory tree sum.
__global__ void rmsnorm_reference(float* y, const __nv_bfloat16* x, const __nv_bfloat16* w, int hidden)
{
    __shared__ float sums[256];
    const __nv_bfloat16* xr = x + static_cast<std::size_t>(blockIdx.x) * hidden;
    float s = 0.f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        const float f = __bfloat162float(xr[i]);
        s += f * f;
    }
    sums[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            sums[threadIdx.x] += sums[threadIdx.x + stride];
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(sums[0] / hidden + kEps);
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        y[static_cast<std::size_t>(blockIdx.x) * hidden + i] = __bfloat162float(xr[i]) * scale * __bfloat162float(w[i]);
}

using Kernel = void (*)(__nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, int, int);

template<int W> Kernel kernel_for_rows(int r)
{
    switch (r) {
    case 1:
        return rmsnorm_kernel<W, 1>;
    case 2:
        return rmsnorm_kernel<W, 2>;
    case 4:
        return rmsnorm_kernel<W, 4>;
    default:
        return rmsnorm_kernel<W, 8>;
    }
}

Kernel kernel_for(int width, int rows_per_block)
{
    switch (width) {
    case 1:
        return kernel_for_rows<1>(rows_per_block);
    case 2:
        return kernel_for_rows<2>(rows_per_block);
    case 4:
        return kernel_for_rows<4>(rows_per_block);
    default:
        return kernel_for_rows<8>(rows_per_block);
    }
}

struct Config {
    int rows, hidden, width, rows_per_block;
    bool wrong;
    explicit Config(const nlohmann::json& p)
        : rows(static_cast<int>(int_param(p, kName, "rows", 8192, 1, 1 << 24)))
        , hidden(static_cast<int>(int_param(p, kName, "hidden", 4096, 1, 1 << 20)))
        , width(static_cast<int>(int_param(p, kName, "vector_width", 8, 1, 8)))
        , rows_per_block(static_cast<int>(int_param(p, kName, "rows_per_block", 1, 1, 8)))
        , wrong(wants_wrong_result(p))
    {
        if (width != 1 && width != 2 && width != 4 && width != 8)
            throw ConfigError("rmsnorm: parameter 'vector_width' must be 1, 2, 4 or 8, got " + std::to_string(width));
        if (rows_per_block != 1 && rows_per_block != 2 && rows_per_block != 4 && rows_per_block != 8)
            throw ConfigError(
                "rmsnorm: parameter 'rows_per_block' must be 1, 2, 4 or 8, got " + std::to_string(rows_per_block));
        if (hidden % width)
            throw ConfigError("rmsnorm: hidden " + std::to_string(hidden) + " is not a multiple of vector_width "
                + std::to_string(width));
    }
    std::size_t elements() const { return static_cast<std::size_t>(rows) * hidden; }
    unsigned blocks() const { return static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block); }
};

// x, y, the weights and the reference, shared by arms of equal shape (buffer_pool.h).
struct Tensors {
    DeviceBuffer x, y, w, ref;
    Tensors(const Config& cfg, cudaStream_t stream)
        : x(cfg.elements() * 2)
        , y(cfg.elements() * 2)
        , w(cfg.hidden * 2)
        , ref(cfg.elements() * 4)
    {
        fill_random(x.as<__nv_bfloat16>(), cfg.elements(), 21, -2.f, 2.f, stream);
        fill_random(w.as<__nv_bfloat16>(), cfg.hidden, 22, 0.5f, 1.5f, stream);
        fill_random(y.as<__nv_bfloat16>(), cfg.elements(), 23, -1.f, 1.f, stream);
        KWB_CUDA(cudaStreamSynchronize(stream));
    }
};

class RmsNorm final : public GpuWorkload {
public:
    RmsNorm(const nlohmann::json& params, const Config& cfg, cudaStream_t stream)
        : cfg_(cfg)
        , set_(acquire_buffers<Tensors>(
              buffer_key(kName, params, {"vector_width", "rows_per_block"}), [&] { return Tensors(cfg, stream); }))
        , t_(set_->data)
        , kernel_(kernel_for(cfg.width, cfg.rows_per_block))
    {
    }
    void launch(cudaStream_t stream) override
    {
        kernel_<<<cfg_.blocks(), kThreads, 0, stream>>>(
            t_.y.as<__nv_bfloat16>(), t_.x.as<__nv_bfloat16>(), t_.w.as<__nv_bfloat16>(), cfg_.rows, cfg_.hidden);
    }
    nlohmann::json verify(cudaStream_t stream) override
    {
        rmsnorm_reference<<<cfg_.rows, 256, 0, stream>>>(
            t_.ref.as<float>(), t_.x.as<__nv_bfloat16>(), t_.w.as<__nv_bfloat16>(), cfg_.hidden);
        KWB_CUDA_LAUNCHED("reference");
        poison(t_.y, stream); // shared with other arms: their output must not count as this arm's
        launch(stream);
        KWB_CUDA_LAUNCHED("launch");
        if (cfg_.wrong) // the correctness gate's test hook: the first row from x unnormalised
            KWB_CUDA(
                cudaMemcpyAsync(t_.y.as<void>(), t_.x.as<void>(), cfg_.hidden * 2, cudaMemcpyDeviceToDevice, stream));
        // bf16 output: one rounding of a value whose fp32 reference it approximates (2^-8 relative).
        constexpr double kTol = 1e-2;
        const auto cmp
            = compare(t_.y.as<__nv_bfloat16>(), t_.ref.as<float>(), cfg_.elements(), kTol, kTol, 1.0, stream);
        return {{"ok", cmp.mismatches == 0}, {"max_abs_error", cmp.max_abs_error}, {"max_rel_error", cmp.max_rel_error},
            {"tolerance", kTol}, {"mismatches", cmp.mismatches},
            {"compared",
                "bf16 rmsnorm " + std::to_string(cfg_.rows) + "x" + std::to_string(cfg_.hidden)
                    + " vs an fp32 reference kernel; |y - ref| <= 1e-2 + 1e-2 * max(|ref|, 1)"}};
    }
    double flops_per_launch() const override { return 4.0 * cfg_.elements(); }
    // x read once (the second pass hits L1/L2), y written once, w read once.
    double bytes_per_launch() const override { return 2.0 * 2.0 * cfg_.elements() + 2.0 * cfg_.hidden; }
    nlohmann::json metrics() const override { return {{"blocks", cfg_.blocks()}}; }

    std::uint64_t buffer_set() const override { return set_->id; }

private:
    Config cfg_;
    std::shared_ptr<BufferSet<Tensors>> set_;
    Tensors& t_;
    Kernel kernel_;
};

} // namespace

WorkloadKind rmsnorm_kind()
{
    return {kName,
        [](const nlohmann::json& p) {
            const Config cfg(p);
            return ResourceNeeds {"rmsnorm vector_width " + std::to_string(cfg.width) + ", "
                    + std::to_string(cfg.rows_per_block) + " rows per block",
                reinterpret_cast<const void*>(kernel_for(cfg.width, cfg.rows_per_block)), kThreads, 0, {}};
        },
        [](const nlohmann::json& p, cudaStream_t stream) -> std::unique_ptr<GpuWorkload> {
            return std::make_unique<RmsNorm>(p, Config(p), stream);
        }};
}

} // namespace kwb::cuda
