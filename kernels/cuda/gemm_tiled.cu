// SPDX-License-Identifier: GPL-3.0-or-later
#include "gemm_tiled.h"

namespace kwb::cuda::gemm {

const std::vector<TiledEntry>& tiled_kernels()
{
    static const std::vector<TiledEntry> all = [] {
        std::vector<TiledEntry> v;
        add_tiled_bk32_w4(v);
        add_tiled_bk32_w8(v);
        add_tiled_bk64_w4(v);
        add_tiled_bk64_w8(v);
        return v;
    }();
    return all;
}

TiledKernel find_tiled(int bm, int bn, int bk, int warps)
{
    for (const auto& e : tiled_kernels())
        if (e.bm == bm && e.bn == bn && e.bk == bk && e.warps == warps)
            return e.kernel;
    return nullptr;
}

} // namespace kwb::cuda::gemm
