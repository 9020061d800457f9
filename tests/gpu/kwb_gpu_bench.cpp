// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmarks of the plugin's kernels through its C ABI, as kwb runs them: copy GB/s per vector
// width (2 GiB fp32 arrays), every compiled tiled-GEMM configuration against cuBLASLt at 4096^3
// and 8192^3, RMSNorm GB/s, and the calibration ceilings. Each configuration is verified first;
// a repetition is a batch of launches lasting at least 10 ms (hot cache), n repetitions each.
// Paged decode attention GB/s at contexts 1k, 8k, 32k, batch 1 (splits 8-128 and auto x ring
// depths 2-6) and 64 (ring depths), GQA 32/8, head dim 128, bf16; torch's side is
// scripts/gpu/torch_attention.py.
// Causal prefill TFLOP/s at batch 4, 32 heads, seq 4096, head dim 128 and 64, every tile configuration that fits.
// timeline: one tiny_llm request (3.4 GB model) under CUPTI Activity, the kernels of a decode step
// with their gaps (what ncu, one kernel at a time, cannot show under PDL and graphs).
// decode-fit: batch 1 at contexts 4k-128k, fixed splits, to fit a launch's fixed cost and tile round.
// Usage: kwb_gpu_bench [copy] [gemm] [rmsnorm] [decode] [decode-fit] [decode-one JSON] [prefill] [calibrate]
//        [timeline] [--reps N]
// (JSON on stdout)
#include "gpu_plugin.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cxxabi.h>
#include <memory>

using nlohmann::json;
using namespace kwb::gputest;

namespace {

int g_reps = 15;

json summary(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    double mean = 0, ss = 0;
    for (double x : v)
        mean += x / n;
    for (double x : v)
        ss += (x - mean) * (x - mean);
    return {{"median", median}, {"n", n}, {"min", v.front()}, {"max", v.back()},
        {"cv_pct", n > 1 ? 100 * std::sqrt(ss / (n - 1)) / mean : 0.0}};
}

// ms per launch of each repetition, or {"error"/"refused": ...}.
json measure(const Plugin& plugin, const std::string& workload, const json& params)
{
    Prepared w(plugin, workload, params);
    if (!w)
        return {{"params", params}, {"refused", w.error}};
    const auto check = w.verify();
    json out = {{"params", params}, {"verify", check}};
    if (!check.value("ok", false))
        return out;
    auto probe = w.run(1, false);
    if (probe.contains("error")) {
        out["error"] = probe.at("error");
        return out;
    }
    probe = w.run(2, false);
    const double per = std::max(probe.at("ms_per_launch").get<double>(), 1e-4);
    const int launches = std::max(1, static_cast<int>(std::ceil(10.0 / per)));
    w.run(launches, false); // warm-up repetition
    std::vector<double> ms;
    for (int r = 0; r < g_reps; ++r) {
        const auto t = w.run(launches, false);
        if (t.contains("error")) {
            out["error"] = t.at("error");
            return out;
        }
        ms.push_back(t.at("ms_per_launch").get<double>());
    }
    out["launches_per_rep"] = launches;
    out["ms_per_launch"] = summary(ms);
    out["flops_per_launch"] = probe.at("flops_per_launch");
    out["bytes_per_launch"] = probe.at("bytes_per_launch");
    if (probe.contains("metrics"))
        out["metrics"] = probe.at("metrics");
    return out;
}

// The same summary in a rate: value / ms (median of rates = rate of the median time).
json rate(const json& m, double per_launch, double scale, const char* unit)
{
    if (!m.contains("ms_per_launch"))
        return nullptr;
    const auto& t = m.at("ms_per_launch");
    const auto r = [&](double ms) { return per_launch / (ms * 1e-3) / scale; };
    return {{"median", r(t.at("median"))}, {"n", t.at("n")}, {"min", r(t.at("max"))}, {"max", r(t.at("min"))},
        {"cv_pct", t.at("cv_pct")}, {"unit", unit}};
}

json bench_copy(const Plugin& plugin)
{
    json rows = json::array();
    for (const char* op : {"copy", "triad"})
        for (int width : {1, 2, 4, 8}) {
            auto m = measure(plugin, "bandwidth",
                {{"op", op}, {"bytes_mib", 2048}, {"vector_width", width}, {"block_threads", 256}});
            if (m.contains("bytes_per_launch")) {
                m["gbs"] = rate(m, m.at("bytes_per_launch").get<double>(), 1e9, "GB/s");
                m["pct_of_4800_gbs_datasheet"] = 100.0 * m.at("gbs").at("median").get<double>() / 4800.0;
            }
            std::fprintf(stderr, "%s w%d: %s\n", op, width, m.value("gbs", json()).dump().c_str());
            rows.push_back(m);
        }
    return rows;
}

json bench_gemm(const Plugin& plugin)
{
    json shapes = json::array();
    for (int n : {4096, 8192}) {
        const json base = {{"m", n}, {"n", n}, {"k", n}};
        json lt_params = base;
        lt_params["impl"] = "cublaslt";
        auto lt = measure(plugin, "gemm", lt_params);
        if (lt.contains("flops_per_launch"))
            lt["tflops"] = rate(lt, lt.at("flops_per_launch").get<double>(), 1e12, "TFLOP/s");
        std::fprintf(stderr, "cublaslt %d: %s\n", n, lt.value("tflops", json()).dump().c_str());
        // The reference as it was before issue 29 (fp32 C, the heuristic's first algorithm), beside it.
        json lt_fp32_params = lt_params;
        lt_fp32_params.update({{"c_dtype", "fp32"}, {"algo", "heuristic"}});
        auto lt_fp32 = measure(plugin, "gemm", lt_fp32_params);
        if (lt_fp32.contains("flops_per_launch"))
            lt_fp32["tflops"] = rate(lt_fp32, lt_fp32.at("flops_per_launch").get<double>(), 1e12, "TFLOP/s");
        json configs = json::array();
        double best = 0, worst = 1e30;
        json best_cfg, worst_cfg;
        for (int warps : {4, 8})
            for (int bk : {32, 64})
                for (int bm : {64, 128, 256})
                    for (int bn : {64, 128, 256})
                        for (int stages : {2, 3, 4}) {
                            json p = base;
                            p.update({{"impl", "tiled"}, {"block_m", bm}, {"block_n", bn}, {"block_k", bk},
                                {"stages", stages}, {"warps", warps}});
                            if (!plugin.check("gemm", p).value("ok", false))
                                continue;
                            auto m = measure(plugin, "gemm", p);
                            if (m.contains("flops_per_launch")) {
                                m["tflops"] = rate(m, m.at("flops_per_launch").get<double>(), 1e12, "TFLOP/s");
                                const double t = m.at("tflops").at("median").get<double>();
                                if (lt.contains("tflops"))
                                    m["pct_of_cublaslt"] = 100.0 * t / lt.at("tflops").at("median").get<double>();
                                if (t > best)
                                    best = t, best_cfg = m;
                                if (t < worst)
                                    worst = t, worst_cfg = m;
                            }
                            std::fprintf(stderr, "tiled %d %dx%dx%d s%d w%d: %s\n", n, bm, bn, bk, stages, warps,
                                m.value("tflops", json()).dump().c_str());
                            configs.push_back(m);
                        }
        for (int bn : {128, 256})
            for (int stages : {3, 4}) {
                json p = base;
                p.update({{"impl", "wgmma"}, {"block_m", 128}, {"block_n", bn}, {"block_k", 64}, {"stages", stages},
                    {"warps", 12}});
                const auto c = plugin.check("gemm", p);
                if (!c.value("ok", false)) {
                    std::fprintf(stderr, "wgmma %d 128x%dx64 s%d: refused: %s\n", n, bn, stages, c.dump().c_str());
                    continue;
                }
                auto m = measure(plugin, "gemm", p);
                if (m.contains("flops_per_launch")) {
                    m["tflops"] = rate(m, m.at("flops_per_launch").get<double>(), 1e12, "TFLOP/s");
                    const double t = m.at("tflops").at("median").get<double>();
                    if (lt.contains("tflops"))
                        m["pct_of_cublaslt"] = 100.0 * t / lt.at("tflops").at("median").get<double>();
                    if (t > best)
                        best = t, best_cfg = m;
                    if (t < worst)
                        worst = t, worst_cfg = m;
                }
                std::fprintf(stderr, "wgmma %d 128x%dx64 s%d w12: %s\n", n, bn, stages,
                    m.value("tflops", json()).dump().c_str());
                configs.push_back(m);
            }
        shapes.push_back({{"shape", std::to_string(n) + "^3"}, {"cublaslt", lt}, {"cublaslt_fp32_heuristic", lt_fp32},
            {"best", best_cfg}, {"worst", worst_cfg}, {"configs", configs}});
    }
    return shapes;
}

json bench_rmsnorm(const Plugin& plugin)
{
    json rows = json::array();
    for (int width : {1, 2, 4, 8})
        for (int rpb : {1, 2, 4, 8}) {
            auto m = measure(plugin, "rmsnorm",
                {{"rows", 8192}, {"hidden", 4096}, {"vector_width", width}, {"rows_per_block", rpb}});
            if (m.contains("bytes_per_launch"))
                m["gbs"] = rate(m, m.at("bytes_per_launch").get<double>(), 1e9, "GB/s");
            rows.push_back(m);
        }
    return rows;
}

// Batch 1: split counts from 8 to 128 at ring depths 2-6, both kernels; batch 64: the ring depths
// and page sizes without a split; both: the auto split count (splits 0), and a few plain launches
// (pdl 0) to show what the programmatic launch is worth; batch 1 also at pages of 64 and 128 tokens
// (split counts 24, 48 and auto, rings of 2 and 3).
struct DecodeVariant {
    const char* impl;
    int splits, stages, page, pdl;
};
std::vector<DecodeVariant> decode_variants(int batch)
{
    std::vector<DecodeVariant> v;
    if (batch == 1) {
        for (int splits : {8, 16, 24, 32, 48, 64, 128})
            for (int stages : {2, 3, 4, 6})
                v.push_back({"mma", splits, stages, 16, 1});
        for (int splits : {16, 32, 48, 64})
            for (int stages : {2, 3, 6})
                v.push_back({"simt", splits, stages, 16, 1});
        for (const char* impl : {"simt", "mma"})
            for (int stages : {2, 3}) {
                v.push_back({impl, 0, stages, 16, 1});
                v.push_back({impl, 0, stages, 16, 0});
            }
        for (int page : {64, 128})
            for (int splits : {0, 24, 48})
                for (int stages : {2, 3})
                    v.push_back({"mma", splits, stages, page, 1});
        return v;
    }
    for (const char* impl : {"simt", "mma"}) {
        for (int stages = 2; stages <= 4; ++stages)
            v.push_back({impl, 1, stages, 16, 1});
        v.push_back({impl, 2, 3, 16, 1});
        v.push_back({impl, 1, 3, 16, 0});
        v.push_back({impl, 1, 2, 128, 1});
        v.push_back({impl, 0, 3, 16, 1});
    }
    return v;
}

json bench_decode(const Plugin& plugin)
{
    json rows = json::array();
    for (int context : {1024, 8192, 32768})
        for (int batch : {1, 64}) {
            json best;
            double best_gbs = 0;
            for (const auto& [impl, splits, stages, page, pdl] : decode_variants(batch)) {
                const json p = {{"batch", batch}, {"heads", 32}, {"kv_heads", 8}, {"head_dim", 128},
                    {"context", context}, {"length_spread", 0}, {"page_size", page}, {"splits", splits},
                    {"stages", stages}, {"kv_dtype", "bf16"}, {"impl", impl}, {"pdl", pdl}};
                auto m = measure(plugin, "attention_decode", p);
                if (m.contains("bytes_per_launch")) {
                    m["gbs"] = rate(m, m.at("bytes_per_launch").get<double>(), 1e9, "GB/s");
                    if (m.at("gbs").at("median").get<double>() > best_gbs)
                        best_gbs = m.at("gbs").at("median").get<double>(), best = m;
                }
                std::fprintf(stderr, "decode %s ctx %d batch %d splits %d (%d) stages %d page %d pdl %d: %s %s\n", impl,
                    context, batch, splits, m.value("metrics", json()).value("splits", -1), stages, page, pdl,
                    m.value("gbs", json()).dump().c_str(),
                    m.value("verify", json()).value("ok", false) ? "" : m.dump().c_str());
                rows.push_back(m);
            }
            rows.push_back({{"best_of", {{"context", context}, {"batch", batch}}}, {"best", best}});
        }
    return rows;
}

// Batch 1 at contexts 4k-128k with the split count fixed, so a launch's time is a fixed cost plus
// tiles per block x a tile round: a line fitted through the contexts separates the two (ours and
// torch alike pay the fixed part once a call). Pages shuffled and in order, early start (prologue
// before the grid dependency wait), rings of 2-4, splits 16 (one block per SM), 32 (two), 48
// (three) and auto.
json bench_decode_fit(const Plugin& plugin)
{
    json rows = json::array();
    struct Variant {
        int splits, stages, early, page;
        const char* order;
    };
    const Variant variants[] = {{32, 2, 0, 16, "shuffled"}, {32, 2, 1, 16, "shuffled"}, {32, 3, 0, 16, "shuffled"},
        {32, 3, 1, 16, "shuffled"}, {48, 2, 0, 16, "shuffled"}, {48, 2, 1, 16, "shuffled"}, {16, 4, 0, 16, "shuffled"},
        {0, 2, 1, 16, "shuffled"}, {32, 2, 0, 64, "shuffled"}, {32, 2, 1, 64, "shuffled"}, {32, 2, 0, 16, "ordered"}};
    for (int context : {4096, 8192, 16384, 32768, 65536, 131072})
        for (const auto& [splits, stages, early, page, order] : variants) {
            const json p = {{"batch", 1}, {"heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"context", context},
                {"length_spread", 0}, {"page_size", page}, {"splits", splits}, {"stages", stages}, {"kv_dtype", "bf16"},
                {"impl", "mma"}, {"pdl", 1}, {"early", early}, {"page_order", order}};
            auto m = measure(plugin, "attention_decode", p);
            if (m.contains("bytes_per_launch"))
                m["gbs"] = rate(m, m.at("bytes_per_launch").get<double>(), 1e9, "GB/s");
            std::fprintf(stderr, "fit ctx %d splits %d (%d) stages %d early %d page %d %s: %.2f us %s %s\n", context,
                splits, m.value("metrics", json()).value("splits", -1), stages, early, page, order,
                m.contains("ms_per_launch") ? 1e3 * m.at("ms_per_launch").at("median").get<double>() : -1.0,
                m.value("gbs", json()).dump().c_str(),
                m.value("verify", json()).value("ok", false) ? "" : m.dump().c_str());
            rows.push_back(m);
        }
    return rows;
}

json bench_prefill(const Plugin& plugin)
{
    json rows = json::array();
    for (int d : {128, 64}) {
        json best;
        double best_tflops = 0;
        for (const auto& [bm, warps] : std::vector<std::pair<int, int>> {{64, 4}, {128, 8}, {128, 4}})
            for (int bn : {32, 64, 128})
                for (int stages : {2, 3}) {
                    const json p = {{"batch", 4}, {"heads", 32}, {"kv_heads", 32}, {"head_dim", d}, {"seq_len", 4096},
                        {"length_spread", 0}, {"block_m", bm}, {"block_n", bn}, {"stages", stages}, {"warps", warps}};
                    if (!plugin.check("attention_prefill", p).value("ok", false))
                        continue;
                    auto m = measure(plugin, "attention_prefill", p);
                    if (m.contains("flops_per_launch")) {
                        m["tflops"] = rate(m, m.at("flops_per_launch").get<double>(), 1e12, "TFLOP/s");
                        if (m.at("tflops").at("median").get<double>() > best_tflops)
                            best_tflops = m.at("tflops").at("median").get<double>(), best = m;
                    }
                    std::fprintf(stderr, "prefill D%d %dx%d w%d s%d: %s %s\n", d, bm, bn, warps, stages,
                        m.value("tflops", json()).dump().c_str(),
                        m.value("verify", json()).value("ok", false) ? "" : m.dump().c_str());
                    rows.push_back(m);
                }
        rows.push_back({{"best_of", {{"head_dim", d}}}, {"best", best}});
    }
    return rows;
}

std::string short_kernel_name(const std::string& mangled)
{
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    std::string n = status == 0 && d ? d.get() : mangled;
    for (const std::string cut : {"kwb::cuda::tllm::", "kwb::cuda::decode::", "kwb::cuda::", "void "})
        for (auto at = n.find(cut); at != std::string::npos; at = n.find(cut))
            n.erase(at, cut.size());
    if (const auto paren = n.rfind('('); paren != std::string::npos)
        n.erase(paren);
    return n;
}

// The kernels of one decode step two thirds into a request (steps start at `embed`): start and
// duration in us from the step's first start, and the gap since the latest end before it
// (negative: overlapped, as PDL lets a kernel start while the previous one drains).
json step_timeline(const json& kernels)
{
    std::vector<json> ks(kernels.begin(), kernels.end());
    std::sort(ks.begin(), ks.end(),
        [](const json& a, const json& b) { return a.at("start_ns").get<double>() < b.at("start_ns").get<double>(); });
    std::vector<std::size_t> steps;
    for (std::size_t i = 0; i < ks.size(); ++i)
        if (short_kernel_name(ks[i].at("name").get<std::string>()).find("embed") == 0)
            steps.push_back(i);
    if (steps.size() < 4)
        return {{"error", "fewer than 4 embed kernels in the request"}};
    const std::size_t pick = steps.size() * 2 / 3, first = steps[pick], last = steps[pick + 1];
    const double t0 = ks[first].at("start_ns").get<double>();
    double latest_end = t0, busy = 0;
    json rows = json::array();
    for (std::size_t i = first; i < last; ++i) {
        const double start = ks[i].at("start_ns").get<double>(), end = ks[i].at("end_ns").get<double>();
        rows.push_back(
            {{"kernel", short_kernel_name(ks[i].at("name").get<std::string>())}, {"start_us", (start - t0) / 1e3},
                {"us", (end - start) / 1e3}, {"gap_us", i == first ? 0.0 : (start - latest_end) / 1e3}});
        busy += end - start;
        latest_end = std::max(latest_end, end);
    }
    return {{"step_us", (ks[last].at("start_ns").get<double>() - t0) / 1e3}, {"kernel_us_sum", busy / 1e3},
        {"kernels", rows}};
}

json bench_timeline(const Plugin& plugin)
{
    const json model = {{"layers", 8}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 8}, {"ffn", 11008},
        {"requests", 1}, {"prompt_len", 512}, {"gen_tokens", 24}, {"length_spread", 0}};
    json out = json::array();
    for (const json& variant : {json {{"cuda_graph", "on"}}, json {{"cuda_graph", "on"}, {"attention_impl", "simt"}},
             json {{"cuda_graph", "on"}, {"gemv_grid", "wave"}},
             json {{"cuda_graph", "on"}, {"early_attention", "off"}}, json {{"cuda_graph", "off"}}}) {
        json p = model;
        p.update(variant);
        Prepared w(plugin, "tiny_llm", p);
        if (!w) {
            out.push_back({{"params", p}, {"refused", w.error}});
            continue;
        }
        w.run(1, false); // warm-up: graphs captured, buffers touched
        const char* error = nullptr;
        if (plugin.api->activity_begin(&error) != 0) {
            out.push_back({{"params", p}, {"error", error ? error : "activity_begin failed"}});
            continue;
        }
        const auto timed = w.run(1, false);
        const auto records = json::parse(plugin.api->activity_end());
        json row = {{"params", p}, {"run", timed}};
        row["step"] = records.contains("kernels") ? step_timeline(records.at("kernels")) : records;
        std::fprintf(stderr, "timeline %s: step %.1f us, kernels %.1f us\n", variant.dump().c_str(),
            row["step"].value("step_us", 0.0), row["step"].value("kernel_us_sum", 0.0));
        for (const auto& k : row["step"].value("kernels", json::array()))
            std::fprintf(stderr, "  %8.2f %7.2f %7.2f  %s\n", k.at("start_us").get<double>(), k.at("us").get<double>(),
                k.at("gap_us").get<double>(), k.at("kernel").get<std::string>().substr(0, 90).c_str());
        out.push_back(row);
    }
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> stages;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            g_reps = std::max(2, std::atoi(argv[++i]));
        else
            stages.emplace_back(argv[i]);
    }
    if (stages.empty())
        stages = {"calibrate", "copy", "gemm", "rmsnorm"};
    const auto plugin = require_plugin();
    json out = {{"device", plugin.device}, {"reps", g_reps}};
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const std::string& s = stages[i];
        if (s == "copy")
            out["copy"] = bench_copy(plugin);
        else if (s == "gemm")
            out["gemm"] = bench_gemm(plugin);
        else if (s == "rmsnorm")
            out["rmsnorm"] = bench_rmsnorm(plugin);
        else if (s == "decode")
            out["decode"] = bench_decode(plugin);
        else if (s == "decode-fit")
            out["decode_fit"] = bench_decode_fit(plugin);
        else if (s == "decode-one") { // one configuration, for ncu: decode-one JSON
            const json params = i + 1 < stages.size() ? json::parse(stages[++i], nullptr, false) : json();
            if (!params.is_object()) {
                std::fprintf(stderr, "kwb_gpu_bench: decode-one needs a JSON object of attention_decode parameters\n");
                return 2;
            }
            out["decode_one"] = measure(plugin, "attention_decode", params);
        } else if (s == "prefill")
            out["prefill"] = bench_prefill(plugin);
        else if (s == "timeline")
            out["timeline"] = bench_timeline(plugin);
        else if (s == "calibrate")
            out["calibrate"] = json::parse(plugin.api->calibrate(0));
        else {
            std::fprintf(stderr,
                "kwb_gpu_bench: unknown stage \"%s\" (copy, gemm, rmsnorm, decode, decode-fit, decode-one JSON, "
                "prefill, calibrate, timeline)\n",
                s.c_str());
            return 2;
        }
    }
    std::printf("%s\n", out.dump(1).c_str());
    return 0;
}
