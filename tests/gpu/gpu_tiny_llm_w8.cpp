// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm with weight-only fp8 (`weights` fp8): at the cuda defaults (16 layers, 2048 wide,
// 32000 tokens) both arms pass their checks, the fp8 arm's accuracy guard against the bf16 model
// included; the fp8 arm declares a byte a weight plus a scale per row in step_mb; its ITL
// (median of alternated repetitions) is below the bf16 arm's and below the bf16 arm's
// bytes-moved bound (its step_mb / the measured copy ceiling). Small shapes with batch, graph,
// an fp8 KV cache and the unfused GEMV pass the check too; combinations it cannot serve are refused.
#include "cpu/decoder_model.h"
#include "gpu_plugin.h"

#include <algorithm>
#include <cmath>

using nlohmann::json;
using namespace kwb::gputest;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}

bool guard_ok(const json& v)
{
    const auto g = v.value("accuracy_guard", json());
    std::printf("accuracy_guard: %s\n", g.dump().c_str());
    return g.is_object() && g.value("ok", false);
}

} // namespace

int main()
{
    const auto plugin = require_plugin();

    // Small shapes: batch 1 and 3 (the GEMV's R 4), a graph, an fp8 KV cache (the QKV GEMV's e4m3
    // cache store), hidden 1024 x batch 8 (R 8), and a Poisson run.
    const json base = {{"layers", 2}, {"hidden", 256}, {"heads", 4}, {"kv_heads", 2}, {"ffn", 512}, {"vocab", 4096},
        {"prompt_len", 37}, {"gen_tokens", 9}, {"requests", 3}, {"length_spread", 50}, {"batch", 1}, {"seed", 42},
        {"page_size", 16}, {"splits", 1}, {"cuda_graph", "off"}, {"weights", "fp8"}};
    for (const json& changes : {json::object(), json {{"cuda_graph", "on"}, {"batch", 3}, {"splits", 3}},
             json {{"kv_dtype", "fp8"}, {"batch", 2}, {"cuda_graph", "on"}},
             json {{"hidden", 1024}, {"heads", 8}, {"kv_heads", 1}, {"batch", 8}},
             json {{"arrivals", "poisson"}, {"rate", 100000}, {"max_batch", 4}, {"requests", 5}}}) {
        json p = base;
        p.update(changes);
        Prepared w(plugin, "tiny_llm", p);
        KWB_CHECK(w);
        if (!w)
            continue;
        const auto v = w.verify();
        std::printf("w8 %s: ok %d max_abs_error %s tolerance %s\n", changes.dump().c_str(), v.value("ok", false),
            v.value("max_abs_error", json()).dump().c_str(), v.value("tolerance", json()).dump().c_str());
        KWB_CHECK(v.value("ok", false) && guard_ok(v));
        KWB_CHECK(w.run(1, false).value("metrics", json::object()).value("itl_p50_ms", 0.0) > 0);
    }
    for (const json& bad : {json {{"decode_gemm", "cublaslt"}}, json {{"ffn", 1000}}, json {{"weights", "int4"}}}) {
        json p = base;
        p.update(bad);
        const auto c = plugin.check("tiny_llm", p);
        std::printf("%s refused: %s\n", bad.dump().c_str(), c.dump().c_str());
        KWB_CHECK(!c.value("ok", true) && c.contains("error"));
    }

    // The cuda defaults, bf16 against fp8 weights.
    Prepared bf16(plugin, "tiny_llm", json {{"weights", "bf16"}}), fp8(plugin, "tiny_llm", json {{"weights", "fp8"}});
    KWB_CHECK(bf16 && fp8);
    if (!bf16 || !fp8)
        return finish("gpu_tiny_llm_w8");
    const auto vb = bf16.verify(), vf = fp8.verify();
    std::printf("bf16 check: ok %d; fp8 check: ok %d max_abs_error %s tolerance %s\n", vb.value("ok", false),
        vf.value("ok", false), vf.value("max_abs_error", json()).dump().c_str(),
        vf.value("tolerance", json()).dump().c_str());
    KWB_CHECK(vb.value("ok", false) && vb.value("accuracy_guard", json()).is_null());
    KWB_CHECK(vf.value("ok", false) && guard_ok(vf));

    bf16.run(1, false), fp8.run(1, false); // warm-up
    std::vector<double> itl_b, itl_f;
    double step_b = 0, step_f = 0;
    for (int rep = 0; rep < 7; ++rep) // alternated, so clocks and heat fall on both arms alike
        for (int arm = 0; arm < 2; ++arm) {
            const auto m = (arm ? fp8 : bf16).run(1, false).value("metrics", json::object());
            (arm ? itl_f : itl_b).push_back(m.value("itl_p50_ms", 0.0));
            (arm ? step_f : step_b) = m.value("step_mb", 0.0);
        }
    // The bf16 arm's bytes-moved bound: its step over the measured copy ceiling.
    const auto cal = json::parse(plugin.api->calibrate(0));
    const double copy_gbs = cal.value("copy_gbs", json::object()).value("median", 0.0);
    const double bound_ms = copy_gbs > 0 ? step_b * 1e6 / (copy_gbs * 1e9) * 1e3 : 0.0;
    const double ib = median(itl_b), iff = median(itl_f);
    std::printf("defaults: itl_p50 bf16 %.4f ms, fp8 %.4f ms (medians of 7); step_mb bf16 %.2f, fp8 %.2f; copy %.0f "
                "GB/s; bf16 bound %.4f ms; fp8 / bf16 bound %.3f\n",
        ib, iff, step_b, step_f, copy_gbs, bound_ms, bound_ms > 0 ? iff / bound_ms : 0.0);
    KWB_CHECK(iff > 0 && ib > 0 && iff < ib);
    KWB_CHECK(bound_ms > 0 && iff < bound_ms);
    // fp8's step reads every linear weight at one byte (not two) and a 4-byte scale per output row.
    kwb::cpu::DecoderConfig c; // the cuda defaults
    c.layers = 16, c.hidden = 2048, c.heads = 16, c.kv_heads = 4, c.ffn = 5632, c.vocab = 32000, c.seed = 42;
    const double weights = kwb::cpu::decoder_linear_weight_count(c);
    const double kv_dim = c.hidden / c.heads * c.kv_heads;
    const double rows = c.layers * (c.hidden + 2 * kv_dim + c.hidden + 2.0 * c.ffn + c.hidden) + c.vocab;
    const double saved = (step_b - step_f) * 1e6, expected = weights - 4 * rows;
    std::printf("step bytes saved %.0f, expected %.0f\n", saved, expected);
    KWB_CHECK(std::abs(saved - expected) <= 1e-6 * weights);
    return finish("gpu_tiny_llm_w8");
}
