// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The compiled set of tiled-GEMM kernels. block_m, block_n, block_k and warps are template
// parameters (they fix the unrolled fragment loops and the register tile); stages is a run-time
// argument (the shared-memory ring is dynamic). Instantiated: block_k in {32, 64} and
//   4 warps: block_m x block_n in {64x64, 64x128, 128x64, 128x128}
//   8 warps: the same plus {64x256, 256x64, 128x256, 256x128}
// i.e. every block_m, block_n in {64, 128, 256} whose accumulators fit 128 fp32 registers per
// thread (block_m * block_n <= 4096 * warps). 24 kernels, each built for every target arch.
#include <cuda_bf16.h>
#include <string>
#include <vector>

namespace kwb::cuda::gemm {

using TiledKernel = void (*)(const __nv_bfloat16*, const __nv_bfloat16*, float*, int, int, int, int, int);

struct TiledEntry {
    int bm, bn, bk, warps;
    TiledKernel kernel;
};

void add_tiled_bk32_w4(std::vector<TiledEntry>& out);
void add_tiled_bk32_w8(std::vector<TiledEntry>& out);
void add_tiled_bk64_w4(std::vector<TiledEntry>& out);
void add_tiled_bk64_w8(std::vector<TiledEntry>& out);

const std::vector<TiledEntry>& tiled_kernels();
TiledKernel find_tiled(int bm, int bn, int bk, int warps);
constexpr int kMinStages = 2, kMaxStages = 4;

} // namespace kwb::cuda::gemm
