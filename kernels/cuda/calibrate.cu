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
        constexpr int kN = 8192;
        nlohmann::json shapes = {{"copy",
            "cudaMemcpyAsync device to device, 1 GiB, read + write bytes, " + std::to_string(kSamples)
                + " samples of 10 copies"}};
        if (const CublasLt* lt = CublasLt::get()) {
            DeviceBuffer a(std::size_t(kN) * kN * 2), b(std::size_t(kN) * kN * 2), c(std::size_t(kN) * kN * 4),
                ws(CublasLt::workspace_bytes());
            fill_random(a.as<__nv_bfloat16>(), std::size_t(kN) * kN, 42, -1.f, 1.f, stream);
            fill_random(b.as<__nv_bfloat16>(), std::size_t(kN) * kN, 43, -1.f, 1.f, stream);
            auto ms = time_samples(
                [&] { lt->gemm_bf16(a.as<void>(), b.as<void>(), c.as<float>(), kN, kN, kN, ws.as<void>(), stream); }, 5,
                stream);
            for (double& t : ms)
                t = 2.0 * kN * double(kN) * kN / (t * 1e-3) / 1e12;
            out["bf16_gemm_tflops"] = summary(ms, "TFLOP/s");
            shapes["bf16_gemm"] = "cuBLASLt 8192x8192x8192, bf16 A and B, fp32 C and accumulation, random inputs, "
                + std::to_string(kSamples) + " samples of 5 products";
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
