// SPDX-License-Identifier: GPL-3.0-or-later
// The fused decode step's attention (tiny_llm_attention.cuh): the kernel for the model's head
// dim, GQA group and cache element, launched under PDL when the step is.
#include "tiny_llm_attention.cuh"
#include "tiny_llm_engine.h"

namespace kwb::cuda::tllm {
namespace {
template<int D, int G, typename KV> void launch_step_attention(bool pdl, dim3 grid, const StepAttnArgs& a, cudaStream_t s)
{
    launch_kernel(pdl, step_attention<D, G, KV>, grid, dim3(kStepAttnThreads), step_attn_smem<D, G>(), s, a);
}
template<int D, typename KV> void by_group(int g, bool pdl, dim3 grid, const StepAttnArgs& a, cudaStream_t s)
{
    switch (g) {
    case 1:
        return launch_step_attention<D, 1, KV>(pdl, grid, a, s);
    case 2:
        return launch_step_attention<D, 2, KV>(pdl, grid, a, s);
    case 4:
        return launch_step_attention<D, 4, KV>(pdl, grid, a, s);
    default:
        return launch_step_attention<D, 8, KV>(pdl, grid, a, s);
    }
}
} // namespace

void TinyLlm::step_attention(int seqs, int l, cudaStream_t s) const
{
    const auto& m = cfg_.m;
    const int hd = m.head_dim(), elem = cfg_.fp8 ? 1 : 2;
    const std::size_t layer_pool = static_cast<std::size_t>(pages_) * m.kv_heads * cfg_.page_size * hd;
    const float* scales = kv_scale_.as<float>() + static_cast<std::size_t>(l) * 2 * m.kv_heads;
    const StepAttnArgs a {k_pool_.as<char>() + layer_pool * l * elem, v_pool_.as<char>() + layer_pool * l * elem,
        table_.as<int>(), seq_len_.as<int>(), q_.as<__nv_bfloat16>(), scales, scales + m.kv_heads,
        attn_.as<__nv_bfloat16>(), o_part_.as<float>(), m_part_.as<float>(), l_part_.as<float>(),
        tickets_.as<unsigned>(), m.kv_heads, cfg_.page_size, max_pages_, step_splits_,
        1.0f / std::sqrt(static_cast<float>(hd)) * decode::kLog2e};
    const dim3 grid(static_cast<unsigned>(step_splits_), static_cast<unsigned>(m.kv_heads), static_cast<unsigned>(seqs));
    if (cfg_.fp8) {
        if (hd == 128)
            by_group<128, __nv_fp8_e4m3>(cfg_.group(), cfg_.pdl, grid, a, s);
        else
            by_group<64, __nv_fp8_e4m3>(cfg_.group(), cfg_.pdl, grid, a, s);
    } else if (hd == 128)
        by_group<128, __nv_bfloat16>(cfg_.group(), cfg_.pdl, grid, a, s);
    else
        by_group<64, __nv_bfloat16>(cfg_.group(), cfg_.pdl, grid, a, s);
    KWB_CUDA_LAUNCHED("step attention");
}

} // namespace kwb::cuda::tllm
