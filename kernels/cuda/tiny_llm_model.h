// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's model on the GPU: the CPU backend's Llama-style decoder (kernels/cpu/decoder_model.h:
// the same shapes, the same seeded weights value for value) in one allocation, and the fp32
// reference forward that checks the bf16 serving path.
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>

namespace kwb::cuda::tllm {

struct ModelShape {
    int layers = 2, hidden = 256, heads = 8, kv_heads = 2, ffn = 768, vocab = 4096;
    std::uint64_t seed = 42;
    int head_dim() const { return hidden / heads; }
    int kv_dim() const { return kv_heads * head_dim(); }
    int qkv_width() const { return hidden + 2 * kv_dim(); }
};

inline constexpr double kRopeTheta = 10000.0;

// Offsets (elements) of each tensor in one allocation. Linear weights are [out][in] as on the
// CPU; Q, K, V are one [hidden + 2 kv_dim][hidden] matrix and gate, up one [2 ffn][hidden], so
// each takes one GEMM. Norm gains live in their own fp32 block: attn_norm(l), ffn_norm(l), final.
struct WeightLayout {
    explicit WeightLayout(const ModelShape& s);
    std::size_t embedding = 0, lm_head = 0, total = 0, per_layer = 0;
    std::size_t qkv(int l) const { return first_layer + l * per_layer; }
    std::size_t wo(int l) const { return qkv(l) + qkv_n; }
    std::size_t gate_up(int l) const { return wo(l) + wo_n; }
    std::size_t down(int l) const { return gate_up(l) + gu_n; }
    std::size_t norms = 0; // (2 layers + 1) x hidden
    std::size_t attn_norm(int l) const { return static_cast<std::size_t>(2 * l) * hidden; }
    std::size_t ffn_norm(int l) const { return static_cast<std::size_t>(2 * l + 1) * hidden; }
    std::size_t final_norm() const { return static_cast<std::size_t>(2 * layers) * hidden; }

private:
    std::size_t first_layer = 0, qkv_n = 0, wo_n = 0, gu_n = 0;
    int layers = 0;
    std::size_t hidden = 0;
};

// Every linear weight matrix (the projections of each layer, then the LM head; not the
// embedding): its offset, rows (outputs) and columns (inputs), and the index of its first row
// among all their rows (where its row scales start with fp8 weights).
struct LinearMatrix {
    std::size_t at = 0;
    int rows = 0, cols = 0;
    std::size_t first_row = 0;
};
std::vector<LinearMatrix> linear_matrices(const ModelShape& s);

// Weight-only fp8 (cpu/weight_fp8.h) of every linear matrix, in place: each row's weights, taken
// as bf16 (fp32 ones rounded to bf16 first, as the bf16 model holds them), become e4m3 codes of
// w / scale and are replaced by code x scale (bf16: rounded again; fp32: exact). With `codes`
// (e4m3, [total - qkv(0)]: a weight at `at` has its code at at - qkv(0)) and `scales` (one per
// row, first_row order), those are stored as well.
void quantise_weights(const ModelShape& s, void* weights, bool bf16, void* codes, float* scales, cudaStream_t stream);

// Seeds weights (bf16 or fp32) and the fp32 norm gains exactly as make_decoder_weights does.
void seed_weights(const ModelShape& s, void* weights, bool bf16, float* norms, cudaStream_t stream);

// fp32 forward of one sequence, one token at a time from position 0 (fp32 weights seeded here,
// freed on return; RoPE angles in double): the logits of positions first..tokens.size()-1,
// [positions][vocab]. With `probes`, also the fp32 weights kProbes names, for a test to compare
// with the CPU backend's make_decoder_weights value for value.
// With `fp8`, positions from `from` on attend a cache whose K and V (every position's) are rounded
// to e4m3 with the serving path's scales, [layers][2][kv_heads]: the fp8 KV cache's reference
// (the serving path's prefill attends its own bf16 K and V, its decode steps the fp8 cache).
struct Fp8Cache {
    std::vector<float> scales;
    int from = 0;
};
// With `fp8_weights`, the linear weights are quantise_weights' (fp32 code x scale): the reference
// of the `weights` fp8 model.
std::vector<float> reference_logits(const ModelShape& s, const std::vector<int>& tokens, int first, cudaStream_t stream,
    std::vector<float>* probes = nullptr, const Fp8Cache* fp8 = nullptr, bool fp8_weights = false);

// The probed weights, in order: embedding first and last; layer 0's wq, wk, wv, wo, gate, up,
// down first; the last layer's down last; lm_head first and last; attn_norm(0), ffn_norm(0)
// first; final_norm last.
inline constexpr int kProbes = 15;

} // namespace kwb::cuda::tllm
