// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's requests, the same on every backend (header-only: the GPU plugin includes it too).
// Each request is `batch` sequences served together: prompt and output lengths drawn per request
// uniformly from [len * (1 - spread/100), len], prompt tokens from the seed. With one request and
// no spread the prompts are those of the CPU decoder before it became tiny_llm's CPU backend.
// Requests arrive one after another (each when the previous one has finished) or as a Poisson
// process of `rate` requests/s (continuous_batching.h serves those).
#include "stats/percentile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace kwb::llm {

enum class Arrivals { Sequential, Poisson };

struct Request {
    double arrival_ms = 0; // from the repetition's start (Poisson arrivals; 0 when sequential)
    int prompt_len = 1;
    int gen_tokens = 2; // the first token (from the prefill) included
    std::vector<std::vector<int>> prompts; // [batch][prompt_len]
};

struct ScheduleSpec {
    int requests = 1, batch = 1, prompt_len = 32, gen_tokens = 32, spread_pct = 0, vocab = 4096;
    std::uint64_t seed = 42;
    Arrivals arrivals = Arrivals::Sequential;
    double rate = 50; // requests per second (Poisson arrivals)
};

// SplitMix64: the lengths' and the arrivals' streams (simple enough to recompute in a fixture).
inline std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Arrival times in ms of `count` requests at `rate_per_s`: the first at 0 (the repetition starts
// with work, as a load generator's first request does), then exponential gaps of mean
// 1000 / rate ms by inversion, u = ((z >> 11) + 0.5) / 2^53 from its own SplitMix64 stream.
inline std::vector<double> poisson_arrivals_ms(int count, double rate_per_s, std::uint64_t seed)
{
    std::uint64_t state = seed * 0x9fb21c651e98df25ull + 0x2545f4914f6cdd1dull;
    std::vector<double> at(static_cast<std::size_t>(std::max(count, 0)));
    double t = 0;
    for (auto& a : at) {
        a = t;
        const double u = (static_cast<double>(splitmix64(state) >> 11) + 0.5) * 0x1p-53;
        t += -std::log1p(-u) / rate_per_s * 1000.0;
    }
    return at;
}

inline std::vector<Request> make_schedule(const ScheduleSpec& s)
{
    // Tokens from the seed's own stream (as the CPU decoder drew them); lengths from another.
    std::mt19937_64 tokens(s.seed ^ 0x9e3779b97f4a7c15ull);
    std::uint64_t state = s.seed * 0xd1b54a32d192ed03ull + 7;
    const auto draw = [&state](int hi, int lo_floor, int spread_pct) {
        const int lo = std::max(lo_floor, static_cast<int>(std::ceil(hi * (1.0 - spread_pct / 100.0))));
        if (spread_pct == 0 || lo >= hi)
            return hi;
        return lo + static_cast<int>(splitmix64(state) % static_cast<std::uint64_t>(hi - lo + 1));
    };
    std::vector<Request> out(static_cast<std::size_t>(s.requests));
    for (auto& r : out) {
        r.prompt_len = draw(s.prompt_len, 1, s.spread_pct);
        r.gen_tokens = draw(s.gen_tokens, 2, s.spread_pct);
        r.prompts.assign(static_cast<std::size_t>(s.batch), std::vector<int>(static_cast<std::size_t>(r.prompt_len)));
        for (auto& p : r.prompts)
            for (int& t : p)
                t = static_cast<int>(tokens() % static_cast<std::uint64_t>(s.vocab));
    }
    if (s.arrivals == Arrivals::Poisson) {
        const auto at = poisson_arrivals_ms(s.requests, s.rate, s.seed);
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i].arrival_ms = at[i];
    }
    return out;
}

// Percentile p (0..100) of a repetition's requests (stats/percentile.h); 0 when there are none.
inline double percentile_of(std::vector<double> v, double p)
{
    return v.empty() ? 0.0 : stats::percentile(std::move(v), p);
}

// The per-repetition metrics of a served schedule from each request's TTFT, its inter-token
// gaps and its decode time, the same on every backend.
struct ServedRequest {
    double ttft_ms = 0;
    std::vector<double> itl_ms; // gaps between consecutive tokens of the request
};

inline void serving_metrics(
    const std::vector<ServedRequest>& served, double wall_ms, double tokens, std::map<std::string, double>& m)
{
    std::vector<double> ttft, itl, tpot;
    for (const auto& r : served) {
        ttft.push_back(r.ttft_ms);
        itl.insert(itl.end(), r.itl_ms.begin(), r.itl_ms.end());
        if (!r.itl_ms.empty()) {
            double sum = 0;
            for (double g : r.itl_ms)
                sum += g;
            tpot.push_back(sum / static_cast<double>(r.itl_ms.size()));
        }
    }
    double mean_ttft = 0, mean_tpot = 0;
    for (double t : ttft)
        mean_ttft += t / static_cast<double>(ttft.size());
    for (double t : tpot)
        mean_tpot += t / static_cast<double>(tpot.size());
    m["ttft_ms"] = mean_ttft;
    m["ttft_p50_ms"] = percentile_of(ttft, 50);
    m["ttft_p99_ms"] = percentile_of(ttft, 99);
    m["itl_p50_ms"] = percentile_of(itl, 50);
    m["itl_p99_ms"] = percentile_of(itl, 99);
    m["tpot_ms"] = mean_tpot;
    m["tok_s"] = wall_ms > 0 ? tokens / (wall_ms / 1000.0) : 0;
}

} // namespace kwb::llm
