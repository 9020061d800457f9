// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kwb::cpu {

// A small Llama-style decoder: token embedding; per layer RMSNorm -> grouped-query attention
// with rotary position embedding -> residual, RMSNorm -> SwiGLU feed-forward -> residual; a
// final RMSNorm and an untied LM head. fp32, random weights from a seed: the numbers are
// meaningless but the shapes, the arithmetic and the memory traffic are those of the real thing.
struct DecoderConfig {
    int layers = 2;
    int hidden = 256;
    int heads = 8;
    int kv_heads = 2;
    int ffn = 768;
    int vocab = 4096;
    std::uint64_t seed = 42;

    int head_dim() const { return hidden / heads; }
    int kv_dim() const { return kv_heads * head_dim(); }
};

inline constexpr float kRopeTheta = 10000.0f;

// Linear weights are [out][in], row-major (PyTorch's nn.Linear layout): y = W x.
struct DecoderLayerWeights {
    std::vector<float> attn_norm; // hidden
    std::vector<float> wq; // hidden x hidden
    std::vector<float> wk; // kv_dim x hidden
    std::vector<float> wv; // kv_dim x hidden
    std::vector<float> wo; // hidden x hidden
    std::vector<float> ffn_norm; // hidden
    std::vector<float> w_gate; // ffn x hidden
    std::vector<float> w_up; // ffn x hidden
    std::vector<float> w_down; // hidden x ffn
};

struct DecoderWeights {
    DecoderConfig config;
    std::vector<float> embedding; // vocab x hidden
    std::vector<DecoderLayerWeights> layers;
    std::vector<float> final_norm; // hidden
    std::vector<float> lm_head; // vocab x hidden
};

// Seeded weights scaled so activations keep unit variance through the layers (uniform with
// variance 1/in), norm gains near 1. The same config always gives the same weights.
DecoderWeights make_decoder_weights(const DecoderConfig& config);

// Number of weights, for reporting and for sizing checks before allocating.
double decoder_weight_count(const DecoderConfig& config);
// The weights a decode step reads whole: the linear layers and the LM head (not the embedding, of
// which it reads a row per token, nor the norm gains).
double decoder_linear_weight_count(const DecoderConfig& config);

// The correctness oracle: the sequence run one token at a time from the start, every value in
// double (activations, keys and values kept per position in plain vectors), plain loops, RoPE
// angles computed directly. Returns the logits of the last `last_positions` positions,
// [last_positions][vocab].
// With `fp8`, positions from `from` on attend every position's K and V rounded to e4m3 with the
// fp8 cache's scales ([layer][K, V][kv_head], cpu/kv_fp8.h): the reference of a KV cache whose
// prefill attends its own K and V and whose decode steps read the cache. No scales: nothing is
// rounded. With `amax`, the largest |K| and |V| of every position, [layer][K, V][kv_head]: what
// a calibration pass over `tokens` measures.
struct Fp8KvReference {
    std::span<const float> scales;
    int from = 0;
    std::vector<double>* amax = nullptr;
};
std::vector<float> decoder_reference(const DecoderWeights& weights, std::span<const int> tokens, int last_positions,
    const Fp8KvReference* fp8 = nullptr);

} // namespace kwb::cpu
