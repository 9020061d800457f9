// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Hopper GEMM (impl "wgmma", sm_90a only): the same C (fp32) = A (bf16, M x K) * B (bf16,
// K x N) as the tiled kernel, with tiles brought in by the tensor memory accelerator (TMA) and
// multiplied by warpgroup MMAs. A block is 12 warps: one producer warpgroup issuing the copies and
// two consumer warpgroups of 64 x block_n each. Built: block 128 x {128, 256} x 64, stages 2-4 at
// run time. TMA needs 16-byte row strides, so n and k must be multiples of 8.
#include <cstddef>
#include <cuda_runtime.h>
#include <string>

namespace kwb::cuda::gemm {

constexpr int kWgmmaBlockM = 128, kWgmmaBlockK = 64, kWgmmaWarps = 12;

// Shared memory for the stage ring plus its barriers and the 1 KiB alignment slack.
std::size_t wgmma_smem_bytes(int bn, int stages);

// The kernel for block_n (128 or 256), or nullptr when this build has no sm_90a code or no such tile.
const void* wgmma_kernel(int bn);

// Empty when the shape and tile can run; otherwise the one-line reason.
std::string wgmma_refusal(int m, int n, int k, int bm, int bn, int bk, int stages, int warps);

// Tensor maps for A and B, encoded once per prepared workload (driver entry point looked up once).
struct WgmmaPlan {
    alignas(64) unsigned char tma_a[128];
    alignas(64) unsigned char tma_b[128];
    int m = 0, n = 0, k = 0, bn = 0, stages = 0;
};
WgmmaPlan make_wgmma_plan(const void* a, const void* b, int m, int n, int k, int bn, int stages);
void launch_wgmma(const WgmmaPlan& plan, float* c, cudaStream_t stream);

} // namespace kwb::cuda::gemm
