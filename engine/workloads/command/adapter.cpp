// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/adapter.h"

#include "workloads/command/builtin_adapters.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb::command {

const std::vector<KeySpec>& canonical_metrics()
{
    static const std::vector<KeySpec> c = {
        {"time_ms", "time_ms", "ms", Direction::Lower, "time of one kernel launch or benchmark iteration"},
        {"ttft_ms", "ttft_ms", "ms", Direction::Lower, "time to first token: request sent to first streamed token"},
        {"tpot_ms", "tpot_ms", "ms", Direction::Lower,
            "time per output token: per request (latency - ttft) / (output tokens - 1), then the mean over requests"},
        {"itl_ms", "itl_ms", "ms", Direction::Lower, "inter-token latency: every gap between streamed chunks, pooled"},
        {"e2el_ms", "e2el_ms", "ms", Direction::Lower, "end-to-end latency: request sent to last token"},
        {"output_tok_s", "output_tok_s", "tok/s", Direction::Higher, "output tokens per second of benchmark wall time"},
        {"total_tok_s", "total_tok_s", "tok/s", Direction::Higher, "input + output tokens per second of wall time"},
        {"request_per_s", "request_per_s", "req/s", Direction::Higher, "completed requests per second of wall time"},
        {"failed_requests", "failed_requests", "requests", Direction::Lower,
            "requests that failed in the repetition (> 0 makes the verdict inconclusive)"},
        {"peak_gpu_mem_mib", "peak_gpu_mem_mib", "MiB", Direction::Lower,
            "peak GPU memory used while the command ran (NVML)"},
    };
    return c;
}

std::vector<std::string> adapter_names()
{
    return {"nvbench", "gbench", "ncu", "vllm", "sglang", "genai-perf", "genai-perf-csv", "llama-bench", "keymap",
        "regex", "console"};
}

std::vector<std::string> fingerprint_fields(const std::string& adapter, const nlohmann::json& options)
{
    if (adapter != "auto")
        return make_adapter(adapter, options)->fingerprint_fields();
    std::vector<std::string> out;
    for (const auto& name : adapter_names()) {
        std::unique_ptr<Adapter> a;
        try {
            a = make_adapter(name, options);
        } catch (const AdapterError&) {
            continue; // options for another adapter (keymap needs its map): it is not the one detected
        }
        for (auto& f : a->fingerprint_fields())
            if (std::find(out.begin(), out.end(), f) == out.end())
                out.push_back(std::move(f));
    }
    return out;
}

std::unique_ptr<Adapter> make_adapter(const std::string& name, const nlohmann::json& options)
{
    if (name == "nvbench")
        return make_nvbench_adapter(options);
    if (name == "gbench" || name == "google-benchmark")
        return make_gbench_adapter(options);
    if (name == "ncu")
        return make_ncu_adapter(options);
    if (name == "vllm")
        return make_vllm_adapter();
    if (name == "sglang")
        return make_sglang_adapter();
    if (name == "genai-perf" || name == "aiperf")
        return make_genai_perf_json_adapter();
    if (name == "genai-perf-csv")
        return make_genai_perf_csv_adapter();
    if (name == "llama-bench")
        return make_llama_bench_adapter(options);
    if (name == "keymap")
        return make_keymap_adapter(options);
    if (name == "regex")
        return make_regex_adapter(options);
    if (name == "console")
        return make_console_adapter();
    std::string names;
    for (const auto& n : adapter_names())
        names += (names.empty() ? "" : ", ") + n;
    throw AdapterError(fmt::format("unknown adapter '{}' (adapters: auto, {})", name, names));
}

std::unique_ptr<Adapter> detect_adapter(const std::string& text, const nlohmann::json& options)
{
    // keymap and regex need options and never detect; console is the last resort.
    for (const auto& n : adapter_names()) {
        if (n == "keymap" || n == "regex")
            continue;
        auto a = make_adapter(n, options);
        if (a->detects(text))
            return a;
    }
    return nullptr;
}

KeySpec metric_spec(const std::string& metric)
{
    for (const auto& c : canonical_metrics())
        if (c.metric == metric)
            return c;
    for (const auto& n : adapter_names()) {
        if (n == "keymap" || n == "regex")
            continue;
        for (const auto& k : make_adapter(n)->keys())
            if (k.metric == metric)
                return k;
    }
    const auto ends = [&](const std::string& s) {
        return metric.size() >= s.size() && metric.compare(metric.size() - s.size(), s.size(), s) == 0;
    };
    if (ends("_ms") || metric.find("_ms[") != std::string::npos)
        return {metric, metric, "ms", Direction::Lower, ""};
    if (ends("_tok_s") || metric.find("throughput") != std::string::npos || metric.find("_ts[") != std::string::npos
        || ends("_per_second"))
        return {metric, metric, metric.find("request") != std::string::npos ? "req/s" : "tok/s", Direction::Higher, ""};
    return {metric, metric, "", Direction::Lower, ""};
}

nlohmann::json describe_adapters()
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& n : adapter_names()) {
        nlohmann::json options = nlohmann::json::object();
        std::unique_ptr<Adapter> a;
        if (n == "keymap")
            a = make_adapter(n, {{"map", {{"/path/to/value", {{"metric", "METRIC"}, {"unit", "UNIT"}}}}}});
        else if (n == "regex")
            a = make_adapter(
                n, {{"patterns", {{{"regex", "time: ([0-9.]+) ms"}, {"metric", "time_ms"}, {"unit", "ms"}}}}});
        else
            a = make_adapter(n);
        nlohmann::json keys = nlohmann::json::array();
        for (const auto& k : a->keys())
            keys.push_back({{"key", k.key}, {"metric", k.metric}, {"unit", k.unit},
                {"direction", std::string(to_string(k.direction))}, {"description", k.description}});
        out.push_back({{"name", n}, {"description", a->description()}, {"detects", n != "keymap" && n != "regex"},
            {"keys", keys}});
    }
    return out;
}

} // namespace kwb::command
