// SPDX-License-Identifier: GPL-3.0-or-later
#include "buffer_pool.h"
#include "config_check.h"
#include "cublaslt_loader.h"
#include "device_buffer.h"
#include "gemm_tiled.h"
#include "gemm_tiled_kernel.cuh"
#include "gemm_wgmma.h"
#include "gemm_workload.h"

namespace kwb::cuda {
namespace {

constexpr const char* kName = "gemm";
// bf16 inputs are exact in fp32; both sides accumulate in fp32 and differ only in summation order
// (about sqrt(K) * 2^-24 relative), so 1e-2 relative to max(|ref|, 1) catches any wrong tile while
// leaving room for a library that splits K.
constexpr double kTolerance = 1e-2;

// The oracle where cuBLASLt cannot be loaded: one thread per element, fp32 sums in K order.
__global__ void reference_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.f;
    for (int k = 0; k < K; ++k)
        sum = fmaf(__bfloat162float(A[static_cast<std::size_t>(row) * K + k]),
            __bfloat162float(B[static_cast<std::size_t>(k) * N + col]), sum);
    C[static_cast<std::size_t>(row) * N + col] = sum;
}

__global__ void widen_bf16_kernel(const __nv_bfloat16* in, float* out, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __bfloat162float(in[i]);
}

void widen_bf16(const __nv_bfloat16* in, float* out, std::size_t n, cudaStream_t stream)
{
    widen_bf16_kernel<<<1024, 256, 0, stream>>>(in, out, n);
    KWB_CUDA_LAUNCHED("widen_bf16");
}

void launch_reference(
    const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, cudaStream_t stream)
{
    const dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
    reference_gemm<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
    KWB_CUDA_LAUNCHED("reference_gemm");
}

struct Config {
    int m, n, k;
    std::string impl;
    bool tiled; // ours (mma.sync "tiled" or Hopper "wgmma"), checked against cuBLASLt
    bool wgmma;
    int bm, bn, bk, stages, warps;
    bool wrong;
    bool c_bf16; // C written in bf16 (impl cublaslt only: torch.mm's output type)
    CublasLt::Algo algo;
    explicit Config(const nlohmann::json& p)
        : m(static_cast<int>(int_param(p, kName, "m", 4096, 1, 1 << 17)))
        , n(static_cast<int>(int_param(p, kName, "n", 4096, 1, 1 << 17)))
        , k(static_cast<int>(int_param(p, kName, "k", 4096, 1, 1 << 17)))
        , impl(string_param(p, kName, "impl", "tiled", {"tiled", "cublaslt", "wgmma"}))
        , tiled(impl != "cublaslt")
        , wgmma(impl == "wgmma")
        , bm(static_cast<int>(int_param(p, kName, "block_m", 128, 16, 1024)))
        , bn(static_cast<int>(int_param(p, kName, "block_n", 128, 16, 1024)))
        , bk(static_cast<int>(int_param(p, kName, "block_k", 32, 16, 1024)))
        , stages(static_cast<int>(int_param(p, kName, "stages", 3, 1, 16)))
        , warps(static_cast<int>(int_param(p, kName, "warps", 8, 1, 32)))
        , wrong(wants_wrong_result(p))
        , c_bf16(c_type(p, impl))
        , algo(string_param(p, kName, "algo", "best", {"best", "heuristic"}) == "best" ? CublasLt::Algo::Best
                                                                                       : CublasLt::Algo::Heuristic)
    {
    }
    static bool c_type(const nlohmann::json& p, const std::string& impl)
    {
        const std::string t = string_param(p, kName, "c_dtype", "auto", {"auto", "fp32", "bf16"});
        if (t == "bf16" && impl != "cublaslt")
            throw ConfigError("gemm: c_dtype bf16 is for impl cublaslt only; impl " + impl + " writes fp32 C");
        return t == "bf16" || (t == "auto" && impl == "cublaslt");
    }
    CublasLt::Call lt_call(const void* a, const void* b, void* c) const
    {
        return {a, b, c, m, n, k, c_bf16 ? CublasLt::COut::BF16 : CublasLt::COut::F32, algo};
    }
    std::string tile_text() const
    {
        return "block " + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + ", "
            + std::to_string(stages) + " stages";
    }
    std::size_t smem() const
    {
        return wgmma ? gemm::wgmma_smem_bytes(bn, stages) : gemm::tiled_smem_bytes(bm, bn, bk, stages);
    }
    bool aligned() const { return k % 8 == 0 && n % 8 == 0; }
};

ResourceNeeds needs_of(const Config& cfg)
{
    if (!cfg.tiled) {
        // The library chooses its own kernels; only the oracle kernel is ours.
        return {"cublaslt", reinterpret_cast<const void*>(reference_gemm), 256, 0, {}};
    }
    ResourceNeeds needs {cfg.tile_text(), nullptr, cfg.warps * 32, cfg.smem(), {}};
    if (cfg.wgmma) {
        needs.not_built = gemm::wgmma_refusal(cfg.m, cfg.n, cfg.k, cfg.bm, cfg.bn, cfg.bk, cfg.stages, cfg.warps);
#ifdef KWB_HAVE_WGMMA
        if (needs.not_built.empty())
            needs.kernel = gemm::wgmma_kernel(cfg.bn);
#else
        if (needs.not_built.empty())
            needs.not_built = "gemm: impl wgmma is not in this build (it needs sm_90a; KWB_CUDA_ARCHS names no 90)";
#endif
        return needs;
    }
    if (cfg.stages < gemm::kMinStages || cfg.stages > gemm::kMaxStages)
        needs.not_built = "gemm: stages " + std::to_string(cfg.stages) + " is not supported (2, 3 or 4)";
    else if (const auto kernel = gemm::find_tiled(cfg.bm, cfg.bn, cfg.bk, cfg.warps))
        needs.kernel = reinterpret_cast<const void*>(kernel);
    else
        needs.not_built = "gemm: tile " + std::to_string(cfg.bm) + "x" + std::to_string(cfg.bn) + "x"
            + std::to_string(cfg.bk) + " with " + std::to_string(cfg.warps)
            + " warps is not in this build (block_m, block_n in 64, 128, 256 with block_m * block_n <= "
              "4096 * warps; block_k 32 or 64; warps 4 or 8)";
    return needs;
}

// A, B, C, the reference and cuBLASLt's workspace, shared by arms of equal shape (buffer_pool.h).
struct Matrices {
    DeviceBuffer a, b, c, ref, workspace;
    Matrices(const Config& cfg, bool with_workspace, cudaStream_t stream)
        : a(std::size_t(cfg.m) * cfg.k * 2)
        , b(std::size_t(cfg.k) * cfg.n * 2)
        , c(std::size_t(cfg.m) * cfg.n * 4)
        , ref(std::size_t(cfg.m) * cfg.n * 4)
        , workspace(with_workspace ? CublasLt::workspace_bytes() : 0)
    {
        fill_random(a.as<__nv_bfloat16>(), std::size_t(cfg.m) * cfg.k, 31, -1.f, 1.f, stream);
        fill_random(b.as<__nv_bfloat16>(), std::size_t(cfg.k) * cfg.n, 32, -1.f, 1.f, stream);
        fill_random(c.as<float>(), std::size_t(cfg.m) * cfg.n, 33, -1.f, 1.f, stream);
        KWB_CUDA(cudaStreamSynchronize(stream));
    }
};

class Gemm final : public GpuWorkload {
public:
    Gemm(const nlohmann::json& params, const Config& cfg, cudaStream_t stream)
        : cfg_(cfg)
        , lt_(CublasLt::get())
    {
        if (!cfg.tiled && !lt_)
            throw ConfigError("gemm: impl cublaslt is unavailable: " + CublasLt::why());
        if (cfg.tiled) {
            const auto needs = needs_of(cfg);
            if (!needs.kernel)
                throw ConfigError(needs.not_built);
            if (!cfg.wgmma)
                kernel_ = gemm::find_tiled(cfg.bm, cfg.bn, cfg.bk, cfg.warps);
            allow_dynamic_smem(needs.kernel, cfg.smem());
        }
        set_ = acquire_buffers<Matrices>(
            buffer_key(kName, params, {"impl", "block_m", "block_n", "block_k", "stages", "warps"}),
            [&] { return Matrices(cfg, lt_ != nullptr, stream); });
        if (cfg.c_bf16)
            c16_ = DeviceBuffer(std::size_t(cfg.m) * cfg.n * 2);
#ifdef KWB_HAVE_WGMMA
        if (cfg.wgmma)
            plan_ = gemm::make_wgmma_plan(
                set_->data.a.as<void>(), set_->data.b.as<void>(), cfg.m, cfg.n, cfg.k, cfg.bn, cfg.stages);
#endif
    }
    void launch(cudaStream_t stream) override
    {
        if (cfg_.wgmma) {
#ifdef KWB_HAVE_WGMMA
            gemm::launch_wgmma(plan_, m().c.as<float>(), stream);
#endif
        } else if (cfg_.tiled) {
            const dim3 grid((cfg_.n + cfg_.bn - 1) / cfg_.bn, (cfg_.m + cfg_.bm - 1) / cfg_.bm);
            kernel_<<<grid, cfg_.warps * 32, cfg_.smem(), stream>>>(m().a.as<__nv_bfloat16>(),
                m().b.as<__nv_bfloat16>(), m().c.as<float>(), cfg_.m, cfg_.n, cfg_.k, cfg_.stages,
                cfg_.aligned() ? 1 : 0);
        } else {
            lt_->gemm(cfg_.lt_call(m().a.as<void>(), m().b.as<void>(), c_out()), m().workspace.as<void>(), stream);
        }
    }
    nlohmann::json verify(cudaStream_t stream) override
    {
        // The tiled kernel is checked against cuBLASLt when it loads; cuBLASLt itself (and the
        // tiled kernel without it) against the plain fp32 kernel.
        const bool lt_oracle = cfg_.tiled && lt_;
        if (lt_oracle)
            lt_->gemm_bf16(m().a.as<void>(), m().b.as<void>(), m().ref.as<float>(), cfg_.m, cfg_.n, cfg_.k,
                m().workspace.as<void>(), stream);
        else
            launch_reference(m().a.as<__nv_bfloat16>(), m().b.as<__nv_bfloat16>(), m().ref.as<float>(), cfg_.m, cfg_.n,
                cfg_.k, stream);
        poison(m().c, stream); // shared with other arms: their output must not count as this arm's
        if (cfg_.c_bf16)
            poison(c16_, stream);
        launch(stream);
        KWB_CUDA_LAUNCHED("launch");
        if (cfg_.wrong) // the correctness gate's test hook: C[0][0] replaced by a wrong value
            KWB_CUDA(cudaMemsetAsync(c_out(), 0x7f, 4, stream));
        if (cfg_.c_bf16) // compared in fp32: the bf16 C widened (exactly) into the fp32 buffer
            widen_bf16(c16_.as<__nv_bfloat16>(), m().c.as<float>(), std::size_t(cfg_.m) * cfg_.n, stream);
        const auto cmp = compare(
            m().c.as<float>(), m().ref.as<float>(), std::size_t(cfg_.m) * cfg_.n, 0.0, kTolerance, 1.0, stream);
        const std::string what = cfg_.tiled
            ? cfg_.impl + " " + cfg_.tile_text() + ", " + std::to_string(cfg_.warps) + " warps"
            : std::string("cublaslt");
        return {{"ok", cmp.mismatches == 0}, {"max_abs_error", cmp.max_abs_error}, {"max_rel_error", cmp.max_rel_error},
            {"tolerance", kTolerance}, {"mismatches", cmp.mismatches},
            {"compared",
                what + " vs " + (lt_oracle ? "cuBLASLt" : "an fp32 reference kernel") + " at " + std::to_string(cfg_.m)
                    + "x" + std::to_string(cfg_.n) + "x" + std::to_string(cfg_.k) + ", bf16 in, "
                    + (cfg_.c_bf16 ? "bf16" : "fp32") + " out; |c - ref| <= 1e-2 * max(|ref|, 1)"}};
    }
    double flops_per_launch() const override
    {
        return 2.0 * cfg_.m * double(cfg_.n) * cfg_.k;
    }
    double bytes_per_launch() const override
    {
        return 2.0 * cfg_.m * double(cfg_.k) + 2.0 * cfg_.k * double(cfg_.n)
            + (cfg_.c_bf16 ? 2.0 : 4.0) * cfg_.m * double(cfg_.n);
    }
    nlohmann::json metrics() const override
    {
        if (!cfg_.tiled)
            return {{"impl", "cublaslt"}, {"c_dtype", cfg_.c_bf16 ? "bf16" : "fp32"},
                {"algo", lt_->algo_note(cfg_.lt_call(m().a.as<void>(), m().b.as<void>(), c_out()))}};
        return {{"impl", cfg_.impl}, {"smem_bytes_per_block", cfg_.smem()}, {"aligned_loads", cfg_.aligned()}};
    }

    std::uint64_t buffer_set() const override
    {
        return set_->id;
    }

private:
    Matrices& m() const
    {
        return set_->data;
    }
    void* c_out() const
    {
        return cfg_.c_bf16 ? c16_.as<void>() : m().c.as<void>();
    }

    Config cfg_;
    std::shared_ptr<BufferSet<Matrices>> set_;
    const CublasLt* lt_;
    gemm::TiledKernel kernel_ = nullptr;
    gemm::WgmmaPlan plan_ {};
    DeviceBuffer c16_; // this arm's own bf16 C (c_dtype bf16)
};

} // namespace

WorkloadKind gemm_kind()
{
    return {kName, [](const nlohmann::json& p) { return needs_of(Config(p)); },
        [](const nlohmann::json& p, cudaStream_t stream) -> std::unique_ptr<GpuWorkload> {
            return std::make_unique<Gemm>(p, Config(p), stream);
        }};
}

} // namespace kwb::cuda
