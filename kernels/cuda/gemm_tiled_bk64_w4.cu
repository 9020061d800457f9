// SPDX-License-Identifier: GPL-3.0-or-later
// One slice of the tiled-GEMM instantiation set per file, so the build runs them in parallel.
#include "gemm_tiled.h"
#include "gemm_tiled_kernel.cuh"

namespace kwb::cuda::gemm {

void add_tiled_bk64_w4(std::vector<TiledEntry>& out)
{
    out.push_back({64, 64, 64, 4, tiled_gemm<64, 64, 64, 4>});
    out.push_back({64, 128, 64, 4, tiled_gemm<64, 128, 64, 4>});
    out.push_back({128, 64, 64, 4, tiled_gemm<128, 64, 64, 4>});
    out.push_back({128, 128, 64, 4, tiled_gemm<128, 128, 64, 4>});
}

} // namespace kwb::cuda::gemm
