// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// cuBLASLt through dlopen (libcublasLt.so.13, or the file $KWB_CUBLASLT names), so a machine
// without it keeps the plugin's own kernels; only the GEMM reference arm and the calibration's
// GEMM ceiling need it.
#include <cstddef>
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

    // What a torch.mm user gets: C in `c_type` (bf16 as torch's output, or fp32), and with
    // Algo::Best the fastest of the heuristic's top candidates for the shape, each timed once on
    // this call's inputs when the shape is first seen (as cuBLAS-based frameworks autotune).
    enum class COut { F32, BF16 };
    enum class Algo { Heuristic, Best };
    struct Call {
        const void* a;
        const void* b;
        void* c;
        int m, n, k;
        COut c_type = COut::F32;
        Algo algo = Algo::Heuristic;
    };
    void gemm(const Call& call, void* workspace, cudaStream_t stream) const;
    // The algorithm chosen for the call's shape ("best of 8: candidate 3, 0.912 ms; heuristic's
    // first 0.951 ms"), empty before the first gemm() of that shape.
    std::string algo_note(const Call& call) const;
    // The same with B given as W [N][K] row-major (a linear layer's weight: C = A W^T).
    void gemm_bf16_wt(
        const void* a, const void* w, float* c, int m, int n, int k, void* workspace, cudaStream_t stream) const;
    static constexpr std::size_t workspace_bytes() { return 64u << 20; }

    struct Fns;

private:
    void matmul(const Call& call, bool b_is_nk, void* workspace, cudaStream_t stream) const;

public:
    const Fns* fns = nullptr;
    void* handle = nullptr;
};

} // namespace kwb::cuda
