// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// cuBLASLt through dlopen (libcublasLt.so.13, or the file $KWB_CUBLASLT names), so a machine
// without it keeps the plugin's own kernels; only the GEMM reference arm and the calibration's
// GEMM ceiling need it.
#include <cuda_runtime.h>
#include <string>

namespace kwb::cuda {

class CublasLt {
public:
    // Loaded once; null with why() set when the library or one of its symbols is missing.
    static const CublasLt* get();
    static const std::string& why();

    // C (M x N, fp32, row-major) = A (M x K bf16 row-major) * B (K x N bf16 row-major), fp32
    // accumulation, the heuristic's first algorithm. `workspace` of workspace_bytes() bytes.
    void gemm_bf16(
        const void* a, const void* b, float* c, int m, int n, int k, void* workspace, cudaStream_t stream) const;
    // The same with B given as W [N][K] row-major (a linear layer's weight: C = A W^T).
    void gemm_bf16_wt(
        const void* a, const void* w, float* c, int m, int n, int k, void* workspace, cudaStream_t stream) const;
    static constexpr std::size_t workspace_bytes() { return 64u << 20; }

    struct Fns;

private:
    void matmul(const void* a, const void* b, bool b_is_nk, float* c, int m, int n, int k, void* workspace,
        cudaStream_t stream) const;

public:
    const Fns* fns = nullptr;
    void* handle = nullptr;
};

} // namespace kwb::cuda
