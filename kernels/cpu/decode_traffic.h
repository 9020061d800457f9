// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's bytes-moved model, the one rule every backend reports it by (header-only, C++17: the
// GPU plugin includes it too). A decode step reads every linear weight once, however many rows
// it serves, plus the K and V of each active sequence's context; a prefill reads every weight
// once (its own prompt's K and V are not counted). Summed over what a repetition actually ran:
// one request after another (sequential_traffic), or the steps the continuous-batching loop took
// with whichever sequences were active in each (continuous_batching.h counts them).
#include "request_schedule.h"

#include <map>
#include <string>
#include <vector>

namespace kwb::llm {

// What a repetition's prefills and decode steps read, in units the sizes below turn into bytes.
struct DecodeTraffic {
    int prefills = 0;
    int steps = 0; // decode steps, each reading the weights once
    double kv_positions = 0; // over the steps, every active sequence's attended positions
};

// The positions a sequence of `r` attends in the decode step that takes it from `tokens` tokens
// (the first from the prefill) to one more: the prompt and every token so far, the step's input
// token (written to the cache by the step itself) included.
inline int decode_context(const Request& r, int tokens)
{
    return r.prompt_len + tokens;
}

// Each request alone: its prefill, then gen_tokens - 1 steps of its `batch` sequences.
inline DecodeTraffic sequential_traffic(const std::vector<Request>& requests, int batch)
{
    DecodeTraffic t;
    for (const auto& r : requests) {
        ++t.prefills;
        for (int tokens = 1; tokens < r.gen_tokens; ++tokens) {
            ++t.steps;
            t.kv_positions += static_cast<double>(batch) * decode_context(r, tokens);
        }
    }
    return t;
}

// A backend's sizes: the bytes of the weights a step reads once (the linear layers and the LM
// head; not the embedding, of which a step reads a row per token), and of one cached position's
// K and V over all layers.
// A prefill reads the same weights as a step unless the step's are quantised (cuda `weights` fp8:
// a step reads one byte a weight and a float scale per output row, a prefill the bf16 copy).
struct DecodeBytes {
    double weights = 0; // what a decode step reads
    double kv_per_position = 0;
    double prefill_weights = 0; // what a prefill reads

    static DecodeBytes of(double linear_weights, int weight_bytes, int layers, int kv_dim, int kv_bytes)
    {
        const double w = linear_weights * weight_bytes;
        return {w, 2.0 * layers * kv_dim * kv_bytes, w};
    }
    // Weight-only quantised steps: one byte a weight plus a 4-byte scale per output row of each
    // linear layer (`scale_rows` in all); prefills read `prefill_bytes` bytes a weight.
    static DecodeBytes quantised(
        double linear_weights, double scale_rows, int prefill_bytes, int layers, int kv_dim, int kv_bytes)
    {
        return {linear_weights + 4.0 * scale_rows, 2.0 * layers * kv_dim * kv_bytes, linear_weights * prefill_bytes};
    }
    // The repetition's whole traffic: the weights once per prefill and per step, and the steps' K, V.
    double total(const DecodeTraffic& t) const
    {
        return prefill_weights * t.prefills + weights * t.steps + kv_per_position * t.kv_positions;
    }
    // Bytes of the mean decode step: the weights once and the steps' mean K, V.
    double per_step(const DecodeTraffic& t) const
    {
        return weights + (t.steps > 0 ? kv_per_position * t.kv_positions / t.steps : 0);
    }
};

// The bytes-moved metrics, the same on every backend: `step_mb`, the mean decode step's bytes
// (the step's bound is step_mb / the copy ceiling), and `step_gbs`, step_mb / itl_p50_ms (so
// serving_metrics first).
inline void traffic_metrics(const DecodeBytes& bytes, const DecodeTraffic& t, std::map<std::string, double>& m)
{
    const double step = bytes.per_step(t);
    m["step_mb"] = step / 1e6;
    const auto itl = m.find("itl_p50_ms");
    if (itl != m.end() && itl->second > 0)
        m["step_gbs"] = step / (itl->second * 1e6);
}

} // namespace kwb::llm
