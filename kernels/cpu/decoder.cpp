// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/decoder.h"

#include "cpu/kv_fp8.h"
#include "cpu/rmsnorm.h"
#include "cpu/vec_ops.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace kwb::cpu {

namespace {

constexpr int kNormWidth = 8; // rmsnorm's vector width inside the decoder
constexpr int kOutChunk = 16; // output features per linear task: 16 weight rows stay in L1/L2

std::size_t idx(long long a)
{
    return static_cast<std::size_t>(a);
}

} // namespace

DecoderEngine::DecoderEngine(const DecoderWeights& weights, int batch, int max_seq, ThreadPool& pool, KvCache kv)
    : w_(weights)
    , c_(weights.config)
    , batch_(batch)
    , max_seq_(max_seq)
    , pool_(pool)
    , len_(idx(batch), 0)
    , kv_(kv)
{
    const int hd = c_.head_dim();
    rope_cos_.resize(idx(max_seq) * (hd / 2));
    rope_sin_.resize(rope_cos_.size());
    for (int pos = 0; pos < max_seq; ++pos)
        for (int i = 0; i < hd / 2; ++i) {
            const double angle = pos * std::pow(static_cast<double>(kRopeTheta), -2.0 * i / hd);
            rope_cos_[idx(pos) * (hd / 2) + i] = static_cast<float>(std::cos(angle));
            rope_sin_[idx(pos) * (hd / 2) + i] = static_cast<float>(std::sin(angle));
        }
    const std::size_t cache = idx(c_.layers) * batch * c_.kv_heads * max_seq * hd;
    if (kv == KvCache::Fp8) {
        k_fp8_.resize(cache);
        v_fp8_.resize(cache);
        kv_scale_.assign(idx(c_.layers) * 2 * c_.kv_heads, 1.0f);
        kv_rows_.assign(idx(pool.size()), std::vector<float>(2 * idx(hd)));
    } else {
        k_cache_.resize(cache);
        v_cache_.resize(cache);
    }
    const std::size_t rows = idx(batch) * max_seq;
    for (auto* buf : {&x_, &xn_, &q_, &attn_, &tmp_})
        buf->resize(rows * c_.hidden);
    k_.resize(rows * c_.kv_dim());
    v_.resize(rows * c_.kv_dim());
    gate_.resize(rows * c_.ffn);
    up_.resize(rows * c_.ffn);
    last_.resize(idx(batch) * c_.hidden);
    logits_.resize(idx(batch) * c_.vocab);
    scores_.assign(idx(pool.size()), std::vector<float>(idx(max_seq)));
}

std::size_t DecoderEngine::cache_at(int layer, int slot, int kv_head) const
{
    return ((idx(layer) * batch_ + slot) * c_.kv_heads + kv_head) * max_seq_ * c_.head_dim();
}

void DecoderEngine::use_slots(std::size_t count, std::span<const int> slots, const char* what)
{
    if (count == 0 || count > idx(batch_) || (!slots.empty() && slots.size() != count))
        throw std::invalid_argument(std::string("DecoderEngine::") + what + ": one slot per sequence, at most batch");
    slots_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        slots_[i] = slots.empty() ? static_cast<int>(i) : slots[i];
        if (slots_[i] < 0 || slots_[i] >= batch_)
            throw std::invalid_argument(std::string("DecoderEngine::") + what + ": slot out of range");
    }
}

std::span<const float> DecoderEngine::prefill(std::span<const std::vector<int>> prompts, std::span<const int> slots)
{
    use_slots(prompts.size(), slots, "prefill");
    if (prompts[0].empty())
        throw std::invalid_argument("DecoderEngine::prefill: need one non-empty prompt per sequence");
    const auto len = static_cast<int>(prompts[0].size());
    for (std::size_t b = 0; b < prompts.size(); ++b) {
        if (static_cast<int>(prompts[b].size()) != len)
            throw std::invalid_argument("DecoderEngine::prefill: prompts must have the same length");
        if (len_[idx(slots_[b])] + len > max_seq_)
            throw std::invalid_argument("DecoderEngine::prefill: the prompts do not fit the cache");
        for (int t = 0; t < len; ++t)
            std::copy_n(
                w_.embedding.data() + idx(prompts[b][t]) * c_.hidden, c_.hidden, x_.data() + (b * len + t) * c_.hidden);
    }
    forward(len, true);
    return std::span<const float>(logits_).first(prompts.size() * c_.vocab);
}

std::span<const float> DecoderEngine::decode(std::span<const int> tokens, std::span<const int> slots)
{
    use_slots(tokens.size(), slots, "decode");
    for (std::size_t b = 0; b < tokens.size(); ++b) {
        if (len_[idx(slots_[b])] + 1 > max_seq_)
            throw std::invalid_argument("DecoderEngine::decode: one token per sequence, within the cache");
        std::copy_n(w_.embedding.data() + idx(tokens[b]) * c_.hidden, c_.hidden, x_.data() + b * c_.hidden);
    }
    forward(1, false);
    return std::span<const float>(logits_).first(tokens.size() * c_.vocab);
}

int DecoderEngine::argmax(int b) const
{
    const float* row = logits_.data() + idx(b) * c_.vocab;
    return static_cast<int>(std::max_element(row, row + c_.vocab) - row);
}

std::size_t DecoderEngine::bytes() const
{
    std::size_t floats = 0;
    for (const auto* v : {&rope_cos_, &rope_sin_, &k_cache_, &v_cache_, &kv_scale_, &x_, &xn_, &q_, &k_, &v_, &attn_,
             &tmp_, &gate_, &up_, &last_, &logits_})
        floats += v->size();
    for (const auto* per_worker : {&scores_, &kv_rows_})
        for (const auto& s : *per_worker)
            floats += s.size();
    return floats * sizeof(float) + k_fp8_.size() + v_fp8_.size();
}

void DecoderEngine::calibrate_kv_scales(std::span<const std::vector<int>> prompts)
{
    if (kv_ != KvCache::Fp8)
        return;
    kv_amax_.assign(kv_scale_.size(), 0.0f);
    reset();
    prefill(prompts);
    reset();
    for (std::size_t i = 0; i < kv_scale_.size(); ++i)
        kv_scale_[i] = llm::kv_fp8_scale(kv_amax_[i]);
    kv_amax_.clear();
}

void DecoderEngine::forward(int per_seq, bool prefill)
{
    const int seqs = static_cast<int>(slots_.size()), rows = seqs * per_seq;
    const int h = c_.hidden, kv = c_.kv_dim();
    const std::size_t n = idx(rows) * h;
    for (int l = 0; l < c_.layers; ++l) {
        const DecoderLayerWeights& L = w_.layers[l];
        rmsnorm(rows, h, kNormWidth, x_.data(), L.attn_norm.data(), xn_.data(), pool_);
        linear(xn_.data(), rows, h, L.wq, h, q_.data());
        linear(xn_.data(), rows, h, L.wk, kv, k_.data());
        linear(xn_.data(), rows, h, L.wv, kv, v_.data());
        rope(q_.data(), rows, h, per_seq);
        rope(k_.data(), rows, kv, per_seq);
        store_kv(l, per_seq);
        attention(l, per_seq, prefill);
        linear(attn_.data(), rows, h, L.wo, h, tmp_.data());
        for (std::size_t i = 0; i < n; ++i)
            x_[i] += tmp_[i];
        rmsnorm(rows, h, kNormWidth, x_.data(), L.ffn_norm.data(), xn_.data(), pool_);
        linear(xn_.data(), rows, h, L.w_gate, c_.ffn, gate_.data());
        linear(xn_.data(), rows, h, L.w_up, c_.ffn, up_.data());
        for (std::size_t i = 0; i < idx(rows) * c_.ffn; ++i)
            up_[i] *= gate_[i] / (1.0f + std::exp(-gate_[i])); // SwiGLU: silu(gate) * up
        linear(up_.data(), rows, c_.ffn, L.w_down, h, tmp_.data());
        for (std::size_t i = 0; i < n; ++i)
            x_[i] += tmp_[i];
    }
    for (int b = 0; b < seqs; ++b)
        std::copy_n(x_.data() + (idx(b) * per_seq + per_seq - 1) * h, h, last_.data() + idx(b) * h);
    rmsnorm(seqs, h, kNormWidth, last_.data(), w_.final_norm.data(), xn_.data(), pool_);
    linear(xn_.data(), seqs, h, w_.lm_head, c_.vocab, logits_.data());
    for (int slot : slots_)
        len_[idx(slot)] += per_seq;
}

void DecoderEngine::linear(const float* x, int rows, int in, const std::vector<float>& w, int out, float* y)
{
    // Tasks over output features: each reads its kOutChunk weight rows once from memory and
    // reuses them for every token row, which is what decides the speed of a decode step.
    const int chunks = (out + kOutChunk - 1) / kOutChunk;
    pool_.for_each(idx(chunks), [&](std::size_t chunk, int) {
        const int o0 = static_cast<int>(chunk) * kOutChunk;
        const int o1 = std::min(out, o0 + kOutChunk);
        for (int r = 0; r < rows; ++r) {
            const float* xr = x + idx(r) * in;
            float* yr = y + idx(r) * out;
            for (int o = o0; o < o1; ++o)
                yr[o] = vec::dot(xr, w.data() + idx(o) * in, idx(in));
        }
    });
}

// The call's K and V rows into the cache at each slot's next positions: copied, or with fp8
// rounded to e4m3 as value / scale (the cuda backend's rope_scatter stores them so).
void DecoderEngine::store_kv(int layer, int per_seq)
{
    const int hd = c_.head_dim(), kv = c_.kv_dim();
    const auto kv_heads = idx(c_.kv_heads);
    for (std::size_t b = 0; b < slots_.size(); ++b)
        for (int t = 0; t < per_seq; ++t)
            for (int g = 0; g < c_.kv_heads; ++g) {
                const int slot = slots_[b];
                const std::size_t src = (b * per_seq + t) * kv + idx(g) * hd;
                const std::size_t dst = cache_at(layer, slot, g) + idx(len_[idx(slot)] + t) * hd;
                if (kv_ == KvCache::Fp32) {
                    std::copy_n(k_.data() + src, hd, k_cache_.data() + dst);
                    std::copy_n(v_.data() + src, hd, v_cache_.data() + dst);
                    continue;
                }
                const std::size_t ks = idx(layer) * 2 * kv_heads + idx(g), vs = ks + kv_heads;
                for (int d = 0; d < hd; ++d) {
                    const float kx = k_[src + idx(d)], vx = v_[src + idx(d)];
                    k_fp8_[dst + idx(d)] = llm::e4m3_from_float(kx / kv_scale_[ks]);
                    v_fp8_[dst + idx(d)] = llm::e4m3_from_float(vx / kv_scale_[vs]);
                    if (!kv_amax_.empty()) {
                        kv_amax_[ks] = std::max(kv_amax_[ks], std::abs(kx));
                        kv_amax_[vs] = std::max(kv_amax_[vs], std::abs(vx));
                    }
                }
            }
}

void DecoderEngine::rope(float* v, int rows, int width, int per_seq)
{
    const int hd = c_.head_dim();
    for (int r = 0; r < rows; ++r) {
        const int pos = len_[idx(slots_[idx(r / per_seq)])] + r % per_seq;
        const float* cs = rope_cos_.data() + idx(pos) * (hd / 2);
        const float* sn = rope_sin_.data() + idx(pos) * (hd / 2);
        float* row = v + idx(r) * width;
        for (int h0 = 0; h0 < width; h0 += hd)
            for (int i = 0; i < hd / 2; ++i) {
                float& a = row[h0 + 2 * i];
                float& b = row[h0 + 2 * i + 1];
                const float a0 = a, b0 = b;
                a = a0 * cs[i] - b0 * sn[i];
                b = a0 * sn[i] + b0 * cs[i];
            }
    }
}

void DecoderEngine::attention(int layer, int per_seq, bool prefill)
{
    const int hd = c_.head_dim(), h = c_.hidden, kv = c_.kv_dim();
    const int group = c_.heads / c_.kv_heads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const bool fp8 = kv_ == KvCache::Fp8;
    const auto& e4m3 = llm::e4m3_values();
    // One task per (sequence, query head); the keys and values come from the cache, which
    // already holds this step's positions (fp8: a prefill's own positions from its fp32 rows).
    pool_.for_each(slots_.size() * c_.heads, [&](std::size_t task, int worker) {
        const int b = static_cast<int>(task) / c_.heads;
        const int head = static_cast<int>(task) % c_.heads, g = head / group;
        const int slot = slots_[idx(b)], start = len_[idx(slot)];
        const std::size_t at = cache_at(layer, slot, g);
        float* scores = scores_[idx(worker)].data();
        float* decoded = fp8 ? kv_rows_[idx(worker)].data() : nullptr;
        // Position j's K (v = 0) or V (v = 1) row as fp32.
        const auto kv_row = [&](int v, int j) -> const float* {
            if (!fp8)
                return (v ? v_cache_ : k_cache_).data() + at + idx(j) * hd;
            if (prefill && j >= start)
                return (v ? v_ : k_).data() + (idx(b) * per_seq + (j - start)) * kv + idx(g) * hd;
            const std::uint8_t* codes = (v ? v_fp8_ : k_fp8_).data() + at + idx(j) * hd;
            const float s = kv_scale_[(idx(layer) * 2 + v) * c_.kv_heads + g];
            float* row = decoded + v * hd;
            for (int d = 0; d < hd; ++d)
                row[d] = e4m3[codes[d]] * s;
            return row;
        };
        for (int t = 0; t < per_seq; ++t) {
            const int pos = start + t;
            const std::size_t row = (idx(b) * per_seq + t) * h + idx(head) * hd;
            const float* q = q_.data() + row;
            float max_score = -INFINITY;
            for (int j = 0; j <= pos; ++j) {
                scores[j] = vec::dot(q, kv_row(0, j), idx(hd)) * scale;
                max_score = std::max(max_score, scores[j]);
            }
            float total = 0;
            for (int j = 0; j <= pos; ++j)
                total += (scores[j] = std::exp(scores[j] - max_score));
            float* out = attn_.data() + row;
            std::fill_n(out, hd, 0.0f);
            for (int j = 0; j <= pos; ++j)
                vec::axpy(scores[j] / total, kv_row(1, j), out, idx(hd));
        }
    });
}

} // namespace kwb::cpu
