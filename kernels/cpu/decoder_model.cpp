// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/decoder_model.h"

#include "cpu/kv_fp8.h"
#include "cpu/rmsnorm.h"
#include "cpu/workload_util.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace kwb::cpu {

namespace {

std::vector<float> seeded(std::size_t n, std::uint64_t seed, float lo, float hi)
{
    std::vector<float> v(n);
    fill_uniform(v, seed, lo, hi);
    return v;
}

// Uniform on [-a, a] has variance a^2/3; a = sqrt(3/in) gives variance 1/in, so W x keeps the
// scale of x.
std::vector<float> linear_weights(int out, int in, std::uint64_t seed)
{
    const float a = std::sqrt(3.0f / static_cast<float>(in));
    return seeded(static_cast<std::size_t>(out) * in, seed, -a, a);
}

// y[o] = sum_i w[o][i] x[i], double accumulators.
std::vector<double> ref_linear(const std::vector<float>& w, const std::vector<double>& x, int out)
{
    const std::size_t in = x.size();
    std::vector<double> y(static_cast<std::size_t>(out));
    for (std::size_t o = 0; o < y.size(); ++o) {
        double sum = 0;
        for (std::size_t i = 0; i < in; ++i)
            sum += static_cast<double>(w[o * in + i]) * x[i];
        y[o] = sum;
    }
    return y;
}

std::vector<double> ref_rmsnorm(const std::vector<double>& x, const std::vector<float>& gain)
{
    double sum = 0;
    for (double v : x)
        sum += v * v;
    const double inv = 1.0 / std::sqrt(sum / static_cast<double>(x.size()) + kRmsNormEps);
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = x[i] * inv * gain[i];
    return y;
}

// Rotates the pairs (2i, 2i+1) of each head by pos * theta^(-2i/head_dim).
void ref_rope(std::vector<double>& v, int head_dim, int pos)
{
    for (std::size_t h = 0; h < v.size(); h += static_cast<std::size_t>(head_dim))
        for (int i = 0; i < head_dim / 2; ++i) {
            const double angle = pos * std::pow(static_cast<double>(kRopeTheta), -2.0 * i / head_dim);
            const double c = std::cos(angle), s = std::sin(angle);
            double& a = v[h + 2 * static_cast<std::size_t>(i)];
            double& b = v[h + 2 * static_cast<std::size_t>(i) + 1];
            const double a0 = a, b0 = b;
            a = a0 * c - b0 * s;
            b = a0 * s + b0 * c;
        }
}

} // namespace

DecoderWeights make_decoder_weights(const DecoderConfig& c)
{
    DecoderWeights w;
    w.config = c;
    std::uint64_t s = c.seed * 1000003u; // each tensor its own stream, all from the one seed
    w.embedding = seeded(static_cast<std::size_t>(c.vocab) * c.hidden, ++s, -1.0f, 1.0f);
    for (int l = 0; l < c.layers; ++l) {
        DecoderLayerWeights L;
        L.attn_norm = seeded(static_cast<std::size_t>(c.hidden), ++s, 0.8f, 1.2f);
        L.wq = linear_weights(c.hidden, c.hidden, ++s);
        L.wk = linear_weights(c.kv_dim(), c.hidden, ++s);
        L.wv = linear_weights(c.kv_dim(), c.hidden, ++s);
        L.wo = linear_weights(c.hidden, c.hidden, ++s);
        L.ffn_norm = seeded(static_cast<std::size_t>(c.hidden), ++s, 0.8f, 1.2f);
        L.w_gate = linear_weights(c.ffn, c.hidden, ++s);
        L.w_up = linear_weights(c.ffn, c.hidden, ++s);
        L.w_down = linear_weights(c.hidden, c.ffn, ++s);
        w.layers.push_back(std::move(L));
    }
    w.final_norm = seeded(static_cast<std::size_t>(c.hidden), ++s, 0.8f, 1.2f);
    w.lm_head = linear_weights(c.vocab, c.hidden, ++s);
    return w;
}

double decoder_weight_count(const DecoderConfig& c)
{
    const double h = c.hidden, kv = c.kv_dim(), f = c.ffn, v = c.vocab;
    const double per_layer = 2 * h + 2 * h * h + 2 * kv * h + 3 * f * h;
    return 2 * v * h + h + c.layers * per_layer;
}

double decoder_linear_weight_count(const DecoderConfig& c)
{
    const double h = c.hidden, kv = c.kv_dim(), f = c.ffn, v = c.vocab;
    return v * h + c.layers * (2 * h * h + 2 * kv * h + 3 * f * h);
}

std::vector<float> decoder_reference(
    const DecoderWeights& w, std::span<const int> tokens, int last_positions, const Fp8KvReference* fp8)
{
    const DecoderConfig& c = w.config;
    const int hd = c.head_dim();
    const int group = c.heads / c.kv_heads; // query heads per K/V head
    const auto n = static_cast<int>(tokens.size());
    const auto hidden = static_cast<std::size_t>(c.hidden);
    // K and V of every earlier position, per layer: [layer][pos] -> kv_dim values.
    std::vector<std::vector<std::vector<double>>> keys(c.layers), values(c.layers);
    auto keys8 = keys, values8 = values; // the same rounded to e4m3 (fp8)
    const auto rounded = [&](const std::vector<double>& row, int layer, int which) {
        std::vector<double> out(row.size());
        for (std::size_t i = 0; i < row.size(); ++i) {
            const double s = fp8->scales[(static_cast<std::size_t>(layer) * 2 + which) * c.kv_heads + i / hd];
            out[i] = llm::e4m3_to_float(llm::e4m3_from_float(static_cast<float>(row[i] / s))) * s;
        }
        return out;
    };
    std::vector<float> logits;
    for (int pos = 0; pos < n; ++pos) {
        std::vector<double> x(hidden);
        for (std::size_t i = 0; i < hidden; ++i)
            x[i] = w.embedding[static_cast<std::size_t>(tokens[pos]) * hidden + i];
        for (int l = 0; l < c.layers; ++l) {
            const DecoderLayerWeights& L = w.layers[l];
            const auto xn = ref_rmsnorm(x, L.attn_norm);
            auto q = ref_linear(L.wq, xn, c.hidden);
            auto k = ref_linear(L.wk, xn, c.kv_dim());
            ref_rope(q, hd, pos);
            ref_rope(k, hd, pos);
            keys[l].push_back(k);
            values[l].push_back(ref_linear(L.wv, xn, c.kv_dim()));
            const bool rounding = fp8 && !fp8->scales.empty();
            if (rounding) {
                keys8[l].push_back(rounded(keys[l].back(), l, 0));
                values8[l].push_back(rounded(values[l].back(), l, 1));
            }
            if (fp8 && fp8->amax) {
                fp8->amax->resize(static_cast<std::size_t>(c.layers) * 2 * c.kv_heads);
                for (std::size_t i = 0; i < keys[l].back().size(); ++i)
                    for (int which : {0, 1}) {
                        double& m = (*fp8->amax)[(static_cast<std::size_t>(l) * 2 + which) * c.kv_heads + i / hd];
                        m = std::max(m, std::abs((which ? values : keys)[l].back()[i]));
                    }
            }
            const auto& K = rounding && pos >= fp8->from ? keys8[l] : keys[l];
            const auto& V = rounding && pos >= fp8->from ? values8[l] : values[l];
            std::vector<double> attn(hidden, 0.0);
            for (int h = 0; h < c.heads; ++h) {
                const std::size_t qo = static_cast<std::size_t>(h) * hd;
                const std::size_t ko = static_cast<std::size_t>(h / group) * hd;
                std::vector<double> scores(static_cast<std::size_t>(pos) + 1);
                double max_score = -INFINITY;
                for (int j = 0; j <= pos; ++j) {
                    double dotp = 0;
                    for (int d = 0; d < hd; ++d)
                        dotp += q[qo + d] * K[j][ko + d];
                    scores[j] = dotp / std::sqrt(static_cast<double>(hd));
                    max_score = std::max(max_score, scores[j]);
                }
                double total = 0;
                for (double& s : scores)
                    total += (s = std::exp(s - max_score));
                for (int j = 0; j <= pos; ++j)
                    for (int d = 0; d < hd; ++d)
                        attn[qo + d] += scores[j] / total * V[j][ko + d];
            }
            const auto o = ref_linear(L.wo, attn, c.hidden);
            for (std::size_t i = 0; i < hidden; ++i)
                x[i] += o[i];
            const auto xf = ref_rmsnorm(x, L.ffn_norm);
            const auto g = ref_linear(L.w_gate, xf, c.ffn);
            auto u = ref_linear(L.w_up, xf, c.ffn);
            for (std::size_t i = 0; i < u.size(); ++i)
                u[i] *= g[i] / (1.0 + std::exp(-g[i])); // SwiGLU: silu(gate) * up
            const auto down = ref_linear(L.w_down, u, c.hidden);
            for (std::size_t i = 0; i < hidden; ++i)
                x[i] += down[i];
        }
        if (pos >= n - last_positions) {
            const auto logit = ref_linear(w.lm_head, ref_rmsnorm(x, w.final_norm), c.vocab);
            logits.insert(logits.end(), logit.begin(), logit.end());
        }
    }
    return logits;
}

} // namespace kwb::cpu
