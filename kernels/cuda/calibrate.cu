// SPDX-License-Identifier: GPL-3.0-or-later
#include "calibrate.h"
#include "cublaslt_loader.h"
#include "device_buffer.h"
#include "stats/percentile.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kwb::cuda {
namespace {

constexpr int kSamples = 15;
constexpr int kWarmups = 3;

nlohmann::json summary(std::vector<double> v, const char* unit)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = stats::percentile_sorted(v, 50);
    double mean = 0;
    for (double x : v)
        mean += x / n;
    double ss = 0;
    for (double x : v)
        ss += (x - mean) * (x - mean);
    const double sd = n > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
    return {{"median", median}, {"n", n}, {"min", v.front()}, {"max", v.back()}, {"cv_pct", 100 * sd / mean},
        {"unit", unit}};
}

// Per sample: `inner` back-to-back calls between one event pair; returns ms per call.
template<typename F> std::vector<double> time_samples(F&& call, int inner, cudaStream_t stream)
{
    cudaEvent_t start, stop;
    KWB_CUDA(cudaEventCreate(&start));
    KWB_CUDA(cudaEventCreate(&stop));
    std::vector<double> ms;
    for (int s = -kWarmups; s < kSamples; ++s) {
        KWB_CUDA(cudaEventRecord(start, stream));
        for (int i = 0; i < inner; ++i)
            call();
        KWB_CUDA(cudaEventRecord(stop, stream));
        KWB_CUDA(cudaEventSynchronize(stop));
        float t = 0;
        KWB_CUDA(cudaEventElapsedTime(&t, start, stop));
        if (s >= 0)
            ms.push_back(t / inner);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms;
}

// Reads `passes` times over n float4s (grid-stride) and keeps the sum in a register; the store
// that can never happen (a sum of finite inputs is never NaN-tagged this way) keeps the loads
// alive without writing bytes that would count against the read bandwidth.
template<bool kL2> __global__ void read_kernel(const float4* in, std::size_t n, int passes, float* sink)
{
    float acc = 0.f;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (int p = 0; p < passes; ++p)
        for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
            const float4 v = kL2 ? __ldcg(in + i) : __ldcs(in + i);
            acc += v.x + v.y + v.z + v.w;
        }
    if (acc == -1.2345e-30f)
        sink[0] = acc;
}

// GB/s of read_kernel over `bytes`, read `passes` times per launch.
template<bool kL2>
nlohmann::json read_bandwidth(std::size_t bytes, int passes, int launches, int sms, cudaStream_t stream)
{
    DeviceBuffer buf(bytes), sink(sizeof(float));
    fill_random(buf.as<float>(), bytes / 4, kL2 ? 45 : 44, -1.f, 1.f, stream);
    const std::size_t n = bytes / sizeof(float4);
    auto ms = time_samples(
        [&] {
            read_kernel<kL2><<<sms * 8, 256, 0, stream>>>(buf.as<float4>(), n, passes, sink.as<float>());
            KWB_CUDA_LAUNCHED("read_kernel");
        },
        launches, stream);
    for (double& t : ms)
        t = double(bytes) * passes / (t * 1e-3) / 1e9;
    return summary(ms, "GB/s");
}

} // namespace

nlohmann::json calibrate_device(int device)
{
    KWB_CUDA(cudaSetDevice(device));
    cudaStream_t stream;
    KWB_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    nlohmann::json out;
    try {
        constexpr std::size_t kCopyBytes = std::size_t(1) << 30;
        {
            DeviceBuffer src(kCopyBytes), dst(kCopyBytes);
            fill_random(src.as<float>(), kCopyBytes / 4, 41, -1.f, 1.f, stream);
            auto ms = time_samples(
                [&] {
                    KWB_CUDA(
                        cudaMemcpyAsync(dst.as<void>(), src.as<void>(), kCopyBytes, cudaMemcpyDeviceToDevice, stream));
                },
                10, stream);
            for (double& t : ms)
                t = 2.0 * kCopyBytes / (t * 1e-3) / 1e9;
            out["copy_gbs"] = summary(ms, "GB/s");
        }
        int sms = 0;
        KWB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        int l2_bytes = 0;
        KWB_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
        out["read_gbs"] = read_bandwidth<false>(kCopyBytes, 1, 10, sms, stream);
        // A quarter of the L2: resident in either partition's half on parts that split it (H100/H200).
        const std::size_t l2_set = std::max<std::size_t>(std::size_t(1) << 20, std::size_t(l2_bytes) / 4);
        out["l2_read_gbs"] = read_bandwidth<true>(l2_set, 64, 10, sms, stream);
        constexpr int kN = 8192;
        nlohmann::json shapes = {{"copy",
                                     "cudaMemcpyAsync device to device, 1 GiB, read + write bytes, "
                                         + std::to_string(kSamples) + " samples of 10 copies"},
            {"read",
                "a read-only kernel (float4 streaming loads, grid-stride, " + std::to_string(sms * 8)
                    + " blocks of 256), 1 GiB once per launch, " + std::to_string(kSamples) + " samples of 10"},
            {"l2_read",
                "the same kernel with L1-bypassing loads over " + std::to_string(l2_set >> 20)
                    + " MiB (a quarter of the L2) 64 times per launch, " + std::to_string(kSamples)
                    + " samples of 10"}};
        if (const CublasLt* lt = CublasLt::get()) {
            DeviceBuffer a(std::size_t(kN) * kN * 2), b(std::size_t(kN) * kN * 2), c(std::size_t(kN) * kN * 2),
                ws(CublasLt::workspace_bytes());
            fill_random(a.as<__nv_bfloat16>(), std::size_t(kN) * kN, 42, -1.f, 1.f, stream);
            fill_random(b.as<__nv_bfloat16>(), std::size_t(kN) * kN, 43, -1.f, 1.f, stream);
            // What torch.mm gives: bf16 C and the fastest of the heuristic's candidates for the shape.
            const CublasLt::Call call {
                a.as<void>(), b.as<void>(), c.as<void>(), kN, kN, kN, CublasLt::COut::BF16, CublasLt::Algo::Best};
            auto ms = time_samples([&] { lt->gemm(call, ws.as<void>(), stream); }, 5, stream);
            for (double& t : ms)
                t = 2.0 * kN * double(kN) * kN / (t * 1e-3) / 1e12;
            out["bf16_gemm_tflops"] = summary(ms, "TFLOP/s");
            shapes["bf16_gemm"] = "cuBLASLt 8192x8192x8192, bf16 A, B and C (as torch.mm), fp32 accumulation, "
                                  "random inputs, "
                + lt->algo_note(call) + ", " + std::to_string(kSamples) + " samples of 5 products";
        } else {
            out["cublaslt"] = CublasLt::why();
        }
        out["shapes"] = shapes;
    } catch (...) {
        cudaStreamDestroy(stream);
        throw;
    }
    KWB_CUDA(cudaStreamDestroy(stream));
    return out;
}

} // namespace kwb::cuda
