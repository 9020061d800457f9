// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's prefill through the project's own GEMM (parameter prefill_gemm = wgmma | tiled) in
// place of cuBLASLt, to A/B the TTFT. Both kernels compute C (M x N fp32) = A (M x K bf16) x B
// (K x N bf16), all row-major; tiny_llm's linear weights are [n][k] (out x in), so a transposed
// copy of every linear weight is made once at prepare (the original stays for the decode GEMV).
// One fixed tile each, 128 x 128: a prefill has a few hundred rows (batch x prompt), so at 4096
// columns a 128 x 256 (or 256 x 128) tile gives 32-64 blocks, under half of the H200's 132 SMs,
// where 128 x 128 gives 64-128. Measured at 4096^3 and 8192^3 on the H200
// (bench/results/2026-11-30-h200-gemm-tuned), where every tile fills the GPU: wgmma 128x128x64 with
// 4 stages has 21-22% less throughput than its 128x256x64 (the fastest); tiled 128x128x64 with 3 stages and
// 4 warps within 2% of the fastest tiled (256x128x64).
#include "device_buffer.h"
#include "gemm_tiled.h"
#include "tiny_llm_model.h"

#include <string>

namespace kwb::cuda::tllm {

class PrefillGemm {
public:
    // impl "wgmma" or "tiled"; max_rows bounds the rows of any call. Refuses (ConfigError naming
    // prefill_gemm, one line) a kernel not in this build or not runnable on this GPU and a linear
    // whose shape the kernel does not take; then transposes the weights on `stream`.
    PrefillGemm(const std::string& impl, const ModelShape& m, const WeightLayout& layout, const __nv_bfloat16* weights,
        int max_rows, cudaStream_t stream);

    // out[rows][n] (fp32) = in[rows][k] x W^T, W the [n][k] linear weight at `at` in the layout.
    void run(const __nv_bfloat16* in, int rows, std::size_t at, int n, int k, float* out, cudaStream_t s) const;

    std::size_t bytes() const { return transposed_.bytes(); }

private:
    const __nv_bfloat16* transposed(std::size_t at) const { return transposed_.as<__nv_bfloat16>() + (at - first_); }

    bool wgmma_ = false;
    std::size_t first_ = 0; // layout offset of the first linear weight (layer 0's QKV)
    DeviceBuffer transposed_; // every linear weight from first_ on, each [k][n] at its own offset
    gemm::TiledKernel tiled_ = nullptr;
};

} // namespace kwb::cuda::tllm
