// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/attention.h"

#include "cpu/vec_ops.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace kwb::cpu {

void attention_reference(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o)
{
    const auto d = static_cast<std::size_t>(shape.head_dim);
    const auto seq = static_cast<std::size_t>(shape.seq);
    const double scale = 1.0 / std::sqrt(static_cast<double>(shape.head_dim));
    std::vector<double> scores(seq), out(d);
    for (std::size_t h = 0; h < static_cast<std::size_t>(shape.heads); ++h) {
        const std::size_t base = h * seq * d;
        for (std::size_t i = 0; i < seq; ++i) {
            double max_score = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j <= i; ++j) { // causal: keys up to and including the query
                double s = 0;
                for (std::size_t x = 0; x < d; ++x)
                    s += static_cast<double>(q[base + i * d + x]) * k[base + j * d + x];
                scores[j] = s * scale;
                max_score = std::max(max_score, scores[j]);
            }
            double total = 0;
            for (std::size_t j = 0; j <= i; ++j) {
                scores[j] = std::exp(scores[j] - max_score);
                total += scores[j];
            }
            std::fill(out.begin(), out.end(), 0.0);
            for (std::size_t j = 0; j <= i; ++j)
                for (std::size_t x = 0; x < d; ++x)
                    out[x] += scores[j] / total * v[base + j * d + x];
            for (std::size_t x = 0; x < d; ++x)
                o[base + i * d + x] = static_cast<float>(out[x]);
        }
    }
}

FlashAttention::FlashAttention(int tile_q, int tile_k, int head_dim, ThreadPool& pool)
    : tile_q_(tile_q)
    , tile_k_(tile_k)
    , pool_(pool)
    , scratch_(static_cast<std::size_t>(pool.size()))
{
    const auto tq = static_cast<std::size_t>(tile_q), tk = static_cast<std::size_t>(tile_k);
    const auto d = static_cast<std::size_t>(head_dim);
    for (auto& s : scratch_) {
        s.scores.resize(tq * tk);
        s.k_t.resize(d * tk);
        s.acc.resize(tq * d);
        s.row_max.resize(tq);
        s.row_sum.resize(tq);
    }
}

void FlashAttention::run(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o)
{
    const int q_tiles = (shape.seq + tile_q_ - 1) / tile_q_;
    pool_.for_each(static_cast<std::size_t>(shape.heads) * q_tiles, [&](std::size_t task, int worker) {
        // Later query tiles see more keys; dynamic scheduling in the pool evens that out.
        run_tile(shape, q, k, v, o, static_cast<int>(task / q_tiles), static_cast<int>(task % q_tiles) * tile_q_,
            scratch_[static_cast<std::size_t>(worker)]);
    });
}

void FlashAttention::run_tile(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o,
    int head, int i0, Scratch& s) const
{
    const auto d = static_cast<std::size_t>(shape.head_dim);
    const std::size_t base = static_cast<std::size_t>(head) * shape.seq * d;
    const int tq = std::min(tile_q_, shape.seq - i0);
    const auto tk_stride = static_cast<std::size_t>(tile_k_);
    const float scale = 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    std::fill_n(s.row_max.begin(), tq, kNegInf);
    std::fill_n(s.row_sum.begin(), tq, 0.0f);
    std::fill_n(s.acc.begin(), static_cast<std::size_t>(tq) * d, 0.0f);

    const int last_query = i0 + tq - 1;
    for (int j0 = 0; j0 <= last_query; j0 += tile_k_) {
        const int tk = std::min(tile_k_, shape.seq - j0);
        // K tile transposed so the score loop below runs along keys with unit stride, as a sum
        // of outer products (axpy) rather than one short dot-product reduction per key.
        for (int c = 0; c < tk; ++c)
            for (std::size_t x = 0; x < d; ++x)
                s.k_t[x * tk_stride + c] = k[base + static_cast<std::size_t>(j0 + c) * d + x];
        for (int r = 0; r < tq; ++r) {
            float* srow = s.scores.data() + static_cast<std::size_t>(r) * tk_stride;
            std::fill_n(srow, tk, 0.0f);
            const float* qrow = q + base + static_cast<std::size_t>(i0 + r) * d;
            for (std::size_t x = 0; x < d; ++x) {
                const float qx = qrow[x] * scale;
                vec::axpy(qx, s.k_t.data() + x * tk_stride, srow, static_cast<std::size_t>(tk));
            }
            // Online softmax: rescale what was accumulated under the old max, add this tile.
            const int visible = std::min(tk, i0 + r - j0 + 1); // keys j <= i; the rest are masked
            if (visible <= 0)
                continue;
            float tile_max = kNegInf;
            for (int c = 0; c < visible; ++c)
                tile_max = std::max(tile_max, srow[c]);
            const float new_max = std::max(s.row_max[r], tile_max);
            const float correction = std::exp(s.row_max[r] - new_max); // exp(-inf) = 0 on the first tile
            float* acc = s.acc.data() + static_cast<std::size_t>(r) * d;
            vec::scale(correction, acc, d);
            float sum = 0;
            for (int c = 0; c < visible; ++c) {
                const float p = std::exp(srow[c] - new_max);
                sum += p;
                vec::axpy(p, v + base + static_cast<std::size_t>(j0 + c) * d, acc, d);
            }
            s.row_sum[r] = s.row_sum[r] * correction + sum;
            s.row_max[r] = new_max;
        }
    }
    for (int r = 0; r < tq; ++r) {
        const float inv = 1.0f / s.row_sum[r];
        const float* acc = s.acc.data() + static_cast<std::size_t>(r) * d;
        float* orow = o + base + static_cast<std::size_t>(i0 + r) * d;
        for (std::size_t x = 0; x < d; ++x)
            orow[x] = acc[x] * inv;
    }
}

} // namespace kwb::cpu
