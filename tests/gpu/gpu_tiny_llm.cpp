// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm on the GPU: its weights are the CPU backend's, value for value; its bf16 logits over a
// short prefix and greedy steps agree with an fp32 reference forward at several shapes (head dims
// 64 and 128, every GQA group, prompts not a multiple of the page size, shuffled pages, split-KV,
// batch 1..8, GEMV and cuBLASLt decode, CUDA graph off and on, PDL on and off, GEMV waves whose
// warps walk several rows, bf16 and fp8 KV cache); every greedy token is the first index of the
// largest logit the path stored, the fused step's (picked in its LM head GEMV) also where logits
// tie; a run
// reports the serving metrics with one TTFT per request, one after another and with Poisson
// arrivals into the continuously batched loop (its bytes moved those of the steps it ran); the
// correctness gate's fault is caught; bad shapes are refused.
#include "cpu/decoder_model.h"
#include "gpu_plugin.h"

using nlohmann::json;
using namespace kwb::gputest;

namespace {

kwb::cpu::DecoderConfig cpu_config(const json& params)
{
    kwb::cpu::DecoderConfig c;
    c.layers = params.at("layers");
    c.hidden = params.at("hidden");
    c.heads = params.at("heads");
    c.kv_heads = params.at("kv_heads");
    c.ffn = params.at("ffn");
    c.vocab = params.at("vocab");
    c.seed = params.at("seed");
    return c;
}

void expect_cpu_weights(const json& params, const json& probes)
{
    const auto w = kwb::cpu::make_decoder_weights(cpu_config(params));
    const auto& l0 = w.layers.front();
    const std::vector<float> cpu
        = {w.embedding.front(), w.embedding.back(), l0.wq.front(), l0.wk.front(), l0.wv.front(), l0.wo.front(),
            l0.w_gate.front(), l0.w_up.front(), l0.w_down.front(), w.layers.back().w_down.back(), w.lm_head.front(),
            w.lm_head.back(), l0.attn_norm.front(), l0.ffn_norm.front(), w.final_norm.back()};
    KWB_CHECK(probes.is_array() && probes.size() == cpu.size());
    for (std::size_t i = 0; i < cpu.size() && i < probes.size(); ++i)
        if (probes[i].get<float>() != cpu[i]) {
            std::printf("weight probe %zu: gpu %.9g, cpu %.9g\n", i, probes[i].get<double>(), double(cpu[i]));
            ++failures();
        }
}

// The fused decode step picks its greedy tokens in the LM head GEMV's epilogue, across the
// GEMV's blocks: verify checks every chosen token against the first index of the largest stored
// logit (argmax_mismatches, part of ok) and runs the LM head on one-hot inputs, whose logits
// are single bf16 products and so tie at their largest value (argmax_probe).
void expect_fused_argmax(const Plugin& plugin, const json& params)
{
    Prepared w(plugin, "tiny_llm", params);
    KWB_CHECK(w);
    if (!w)
        return;
    const auto v = w.verify();
    const auto probe = v.value("argmax_probe", json());
    std::printf("fused argmax %s: ok %d, argmax_mismatches %s, argmax_probe %s\n", params.dump().c_str(),
        v.value("ok", false), v.value("argmax_mismatches", json()).dump().c_str(), probe.dump().c_str());
    KWB_CHECK(v.value("ok", false) && v.value("argmax_mismatches", -1) == 0);
    KWB_CHECK(probe.is_object() && probe.value("rows", 0) == params.at("batch").get<int>()
        && probe.value("mismatches", -1) == 0 && probe.value("tied_rows", 0) > 0);
}

} // namespace

int main()
{
    const auto plugin = require_plugin();
    const json base = {{"layers", 2}, {"hidden", 256}, {"heads", 4}, {"kv_heads", 2}, {"ffn", 512}, {"vocab", 4096},
        {"prompt_len", 37}, {"gen_tokens", 9}, {"requests", 3}, {"length_spread", 50}, {"batch", 1}, {"seed", 42},
        {"page_size", 16}, {"splits", 1}, {"cuda_graph", "off"}, {"decode_gemm", "gemv"}};
    const auto with = [&](json changes) {
        json p = base;
        p.update(changes);
        return p;
    };

    // The weights are the CPU backend's (checked through the reference's fp32 copy).
    {
        Prepared w(plugin, "tiny_llm", base);
        KWB_CHECK(w);
        if (w) {
            const auto v = w.verify();
            std::printf("%s\n", v.dump().c_str());
            KWB_CHECK(v.value("ok", false));
            expect_cpu_weights(base, v.value("weight_probes", json()));
        }
    }
    for (const char* graph : {"off", "on"}) {
        expect_verified(plugin, "tiny_llm", with({{"cuda_graph", graph}}));
        // D 128, G 4, batch 3, pages of 32 (prompt 100), split-KV 3.
        expect_verified(plugin, "tiny_llm",
            with({{"hidden", 512}, {"heads", 4}, {"kv_heads", 1}, {"ffn", 1024}, {"batch", 3}, {"page_size", 32},
                {"prompt_len", 100}, {"gen_tokens", 20}, {"splits", 3}, {"cuda_graph", graph}}));
        // G 8 and G 1, batch 8 at the GEMV's limit, then cuBLASLt for the decode GEMMs.
        expect_verified(plugin, "tiny_llm",
            with({{"hidden", 1024}, {"heads", 8}, {"kv_heads", 1}, {"batch", 8}, {"cuda_graph", graph}}));
        expect_verified(plugin, "tiny_llm",
            with({{"heads", 2}, {"kv_heads", 2}, {"hidden", 256}, {"batch", 4}, {"decode_gemm", "cublaslt"},
                {"page_size", 128}, {"cuda_graph", graph}}));
    }
    // splits 0: chosen from batch x kv_heads and the context (4 here), in a graph.
    expect_verified(plugin, "tiny_llm", with({{"splits", 0}, {"prompt_len", 300}, {"cuda_graph", "on"}}));
    // The fused step's variants: no PDL; GEMV waves of 1 block per SM, so a warp walks several rows
    // of the LM head with the next row's loads in flight.
    expect_verified(plugin, "tiny_llm", with({{"pdl", "off"}, {"batch", 2}, {"cuda_graph", "on"}}));
    expect_verified(plugin, "tiny_llm",
        with({{"gemv_blocks_per_sm", 1}, {"hidden", 512}, {"heads", 4}, {"kv_heads", 1}, {"ffn", 1024}, {"batch", 3},
            {"splits", 3}, {"cuda_graph", "on"}}));
    // The step's variants: the attention's early start off, full-wave GEMV grids; ragged batches
    // and a split count above the tiles, so some splits are empty.
    for (const char* graph : {"off", "on"}) {
        expect_verified(
            plugin, "tiny_llm", with({{"early_attention", "off"}, {"batch", 3}, {"splits", 5}, {"cuda_graph", graph}}));
        expect_verified(
            plugin, "tiny_llm", with({{"gemv_grid", "wave"}, {"batch", 3}, {"splits", 5}, {"cuda_graph", graph}}));
        // The attention kernels of the steps (and the unfused path): mma is auto's choice with a bf16
        // cache, so simt explicitly too; D 128 and 64.
        for (const char* impl : {"simt", "mma"})
            expect_verified(plugin, "tiny_llm",
                with({{"attention_impl", impl}, {"batch", 3}, {"splits", 5}, {"cuda_graph", graph}}));
        expect_verified(plugin, "tiny_llm",
            with({{"attention_impl", "mma"}, {"hidden", 512}, {"heads", 8}, {"kv_heads", 2}, {"batch", 2},
                {"decode_gemm", graph == std::string("on") ? "gemv" : "cublaslt"}, {"cuda_graph", graph}}));
        // Balanced GEMV grids (the default) at several rounds of units a warp (ffn 2752 pairs).
        expect_verified(
            plugin, "tiny_llm", with({{"gemv_grid", "balanced"}, {"batch", 2}, {"ffn", 2752}, {"cuda_graph", graph}}));
        expect_verified(plugin, "tiny_llm",
            with({{"batch", 2}, {"splits", 16}, {"prompt_len", 100}, {"kv_dtype", "fp8"}, {"cuda_graph", graph}}));
    }
    // The fused argmax at batch 1 and 8 (the GEMV's limit), PDL and the graph off and on.
    for (const char* pdl : {"off", "on"})
        for (const char* graph : {"off", "on"}) {
            expect_fused_argmax(plugin, with({{"pdl", pdl}, {"cuda_graph", graph}}));
            expect_fused_argmax(plugin,
                with({{"hidden", 1024}, {"heads", 8}, {"kv_heads", 1}, {"batch", 8}, {"pdl", pdl},
                    {"cuda_graph", graph}}));
        }
    // The unfused step (cuBLASLt) keeps its argmax kernel and runs no probe.
    {
        Prepared w(plugin, "tiny_llm", with({{"decode_gemm", "cublaslt"}, {"batch", 2}}));
        KWB_CHECK(w);
        if (w) {
            const auto v = w.verify();
            KWB_CHECK(v.value("ok", false) && v.value("argmax_mismatches", -1) == 0 && v.at("argmax_probe").is_null());
        }
    }
    // A one-token prompt, the shortest output.
    expect_verified(plugin, "tiny_llm", with({{"prompt_len", 1}, {"gen_tokens", 2}, {"length_spread", 0}}));
    // The default size: 16 layers, 2048 wide, 32000 tokens (1.7 GB of bf16 weights).
    const json big = {{"layers", 16}, {"hidden", 2048}, {"heads", 16}, {"kv_heads", 4}, {"ffn", 5632}, {"vocab", 32000},
        {"prompt_len", 300}, {"gen_tokens", 16}, {"requests", 2}, {"length_spread", 50}, {"batch", 1}, {"seed", 42},
        {"cuda_graph", "on"}};
    expect_verified(plugin, "tiny_llm", big);

    // A run: every serving metric, one TTFT per request as the iteration values, ordered percentiles.
    {
        Prepared w(plugin, "tiny_llm", base);
        const auto r = w.run(1, false);
        std::printf("run: %s\n", r.dump().c_str());
        const auto& m = r.value("metrics", json::object());
        for (const char* k :
            {"ttft_ms", "ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "tpot_ms", "tok_s", "peak_mem_mib"})
            KWB_CHECK(m.contains(k) && m.at(k).get<double>() > 0);
        if (m.contains("itl_p50_ms") && m.contains("itl_p99_ms"))
            KWB_CHECK(m.at("itl_p50_ms").get<double>() <= m.at("itl_p99_ms").get<double>());
        KWB_CHECK(m.contains("iterations") && m.at("iterations").size() == 3);
        // The live view's lanes: one TTFT per request, one gap per later token, in time order.
        const auto& rd = m.value("readings", json::object());
        KWB_CHECK(rd.contains("ttft") && rd.at("ttft").at("values").size() == 3);
        KWB_CHECK(rd.contains("itl") && rd.at("itl").at("t_ms").size() == rd.at("itl").at("values").size());
        if (rd.contains("itl") && rd.at("itl").contains("t_ms")) {
            const auto& t = rd.at("itl").at("t_ms");
            for (std::size_t i = 1; i < t.size(); ++i)
                KWB_CHECK(t[i].get<double>() >= t[i - 1].get<double>());
        }
    }

    // An fp8 e4m3 KV cache with calibrated per-head scales: D 64 G 2, D 128 G 4 with split-KV and
    // pages of 32, G 8 in a graph, the default size.
    expect_verified(plugin, "tiny_llm", with({{"kv_dtype", "fp8"}}));
    expect_verified(plugin, "tiny_llm",
        with({{"kv_dtype", "fp8"}, {"hidden", 512}, {"heads", 4}, {"kv_heads", 1}, {"ffn", 1024}, {"batch", 3},
            {"page_size", 32}, {"prompt_len", 100}, {"gen_tokens", 20}, {"splits", 3}}));
    expect_verified(plugin, "tiny_llm",
        with({{"kv_dtype", "fp8"}, {"hidden", 1024}, {"heads", 8}, {"kv_heads", 1}, {"batch", 8},
            {"cuda_graph", "on"}}));
    {
        json p = big;
        p["kv_dtype"] = "fp8";
        expect_verified(plugin, "tiny_llm", p);
    }

    // Poisson arrivals into the continuously batched loop: requests arrive (nearly) at once, so
    // after the first prefill every boundary fills the rows up to max_batch; requests of 2
    // sequences, cuda graphs per width, bf16 and fp8, shuffled pages reused as requests leave.
    for (const json& changes : {json {{"cuda_graph", "off"}}, json {{"cuda_graph", "on"}},
             json {{"cuda_graph", "on"}, {"kv_dtype", "fp8"}, {"batch", 2}, {"splits", 3}}}) {
        json p = with({{"arrivals", "poisson"}, {"rate", 100000}, {"max_batch", 4}, {"requests", 7}});
        p.update(changes);
        expect_verified(plugin, "tiny_llm", p);
        Prepared w(plugin, "tiny_llm", p);
        KWB_CHECK(w);
        if (!w)
            continue;
        for (int rep = 0; rep < 2; ++rep) { // the second repetition starts from a fresh page pool
            const auto r = w.run(1, false);
            const auto& m = r.value("metrics", json::object());
            std::printf("poisson %s: %s\n", changes.dump().c_str(), m.dump().substr(0, 600).c_str());
            for (const char* k : {"ttft_ms", "ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "tpot_ms",
                     "tok_s", "peak_mem_mib"})
                KWB_CHECK(m.contains(k) && m.at(k).get<double>() > 0);
            KWB_CHECK(m.contains("iterations") && m.at("iterations").size() == 7);
            const int batch = p.at("batch").get<int>();
            KWB_CHECK(m.value("peak_batch", 0) == 4 / batch * batch);
            KWB_CHECK(m.value("decode_steps", 0) > 0);
            // Bytes moved over the steps the loop ran (cpu/decode_traffic.h): the total less the mean
            // step times the steps leaves the prefills' reads of the bf16 weights, one per request.
            const double weights = 2 * kwb::cpu::decoder_linear_weight_count(cpu_config(p));
            const double total = r.value("bytes_per_launch", 0.0), step = m.value("step_mb", 0.0) * 1e6;
            KWB_CHECK(
                step > weights && std::abs(total - step * m.value("decode_steps", 0) - 7 * weights) <= 1e-9 * total);
            const auto& rd = m.value("readings", json::object());
            KWB_CHECK(rd.contains("ttft") && rd.at("ttft").at("values").size() == 7);
            KWB_CHECK(rd.contains("itl") && rd.at("itl").at("t_ms").size() == rd.at("itl").at("values").size());
        }
        // A run leaves the check's rows intact: it passes again after serving.
        const auto v = w.verify();
        KWB_CHECK(v.value("ok", false));
    }

    // The prefill through the plugin's own GEMMs (transposed weights) instead of cuBLASLt; the check
    // prefills up to 160 tokens a sequence with them, so rows are ragged: 19-37 rows (D 64 G 2),
    // 300 = 2 x 128 + 44 (D 128 G 4, batch 3), 400-640 with ffn 1000 (ragged k and n)
    // and cuBLASLt decode in a graph, and the fp8 cache's calibration prefill. A run reports the
    // transposed copy (every weight but the embedding, bf16) in peak_mem_mib.
    for (const char* impl : {"wgmma", "tiled"}) {
        expect_verified(plugin, "tiny_llm", with({{"prefill_gemm", impl}}));
        expect_verified(plugin, "tiny_llm",
            with({{"prefill_gemm", impl}, {"hidden", 512}, {"heads", 4}, {"kv_heads", 1}, {"ffn", 1024}, {"batch", 3},
                {"page_size", 32}, {"prompt_len", 100}, {"length_spread", 0}, {"gen_tokens", 20}, {"splits", 3}}));
        expect_verified(plugin, "tiny_llm",
            with({{"prefill_gemm", impl}, {"ffn", 1000}, {"batch", 4}, {"prompt_len", 200}, {"decode_gemm", "cublaslt"},
                {"cuda_graph", "on"}}));
        expect_verified(plugin, "tiny_llm", with({{"prefill_gemm", impl}, {"kv_dtype", "fp8"}, {"prompt_len", 300}}));
        const json p = with({{"prefill_gemm", impl}, {"arrivals", "poisson"}, {"rate", 100000}, {"max_batch", 4},
            {"requests", 5}, {"prompt_len", 150}});
        expect_verified(plugin, "tiny_llm", p);
        json lt = p;
        lt["prefill_gemm"] = "cublaslt";
        Prepared own(plugin, "tiny_llm", p), ref(plugin, "tiny_llm", lt);
        KWB_CHECK(own && ref);
        if (own && ref) {
            const auto mo = own.run(1, false).value("metrics", json::object());
            const auto mr = ref.run(1, false).value("metrics", json::object());
            std::printf("prefill_gemm %s: %s\n", impl, mo.dump().substr(0, 400).c_str());
            KWB_CHECK(mo.value("ttft_ms", 0.0) > 0 && mo.value("iterations", json::array()).size() == 5);
            const double copy_mib = 2 * kwb::cpu::decoder_linear_weight_count(cpu_config(p)) / (1 << 20);
            const double extra = mo.value("peak_mem_mib", 0.0) - mr.value("peak_mem_mib", 0.0);
            std::printf("prefill_gemm %s: peak_mem_mib +%.6f, transposed copy %.6f MiB\n", impl, extra, copy_mib);
            KWB_CHECK(std::abs(extra - copy_mib) <= 1e-9 * copy_mib);
        }
    }
    {
        const auto c = plugin.check("tiny_llm", with({{"prefill_gemm", "cutlass"}}));
        std::printf("prefill_gemm cutlass refused: %s\n", c.dump().c_str());
        KWB_CHECK(!c.value("ok", true)
            && c.value("error", std::string()).find("parameter 'prefill_gemm' must be one of cublaslt, wgmma, tiled")
                != std::string::npos);
    }

    Prepared wrong(plugin, "tiny_llm", with({{"inject_fault", "wrong-result"}}));
    KWB_CHECK(wrong && !wrong.verify().at("ok").get<bool>());
    for (const json& bad : {with({{"heads", 8}}), with({{"kv_heads", 3}}),
             with({{"heads", 8}, {"hidden", 1024}, {"kv_heads", 8}, {"batch", 9}}), with({{"page_size", 48}}),
             with({{"cuda_graph", "maybe"}}), with({{"ffn", 500}}), with({{"kv_dtype", "int4"}}),
             with({{"arrivals", "poisson"}, {"batch", 4}, {"max_batch", 2}}),
             with({{"arrivals", "poisson"}, {"max_batch", 16}})}) {
        const auto c = plugin.check("tiny_llm", bad);
        std::printf("%s refused: %s\n", bad.dump().c_str(), c.dump().c_str());
        KWB_CHECK(!c.value("ok", true) && c.contains("error"));
    }
    return finish("gpu_tiny_llm");
}
