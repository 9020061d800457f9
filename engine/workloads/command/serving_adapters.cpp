// SPDX-License-Identifier: GPL-3.0-or-later
// Serving benchmarks: vLLM --save-result JSON, SGLang bench_serving JSONL, genai-perf / AIPerf JSON
// and CSV. Keys as ../shared/notes/serving-bench-formats.md collects them; latencies in ms,
// throughputs per second of benchmark wall time.
#include "workloads/command/adapter_text.h"
#include "workloads/command/builtin_adapters.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace kwb::command {
namespace {

using nlohmann::json;

// A canonical metric read from the first of several keys present (the mean, else the median).
struct Alias {
    std::string metric;
    std::vector<std::string> keys;
};

// Flat result objects: every finite number kept under its own key, canonical names from aliases,
// the fingerprint from the listed keys that are present.
Reading read_flat(const std::string& tool, const json& j, const std::vector<Alias>& aliases,
    const std::vector<std::string>& fingerprint_keys)
{
    if (!j.is_object())
        throw AdapterError(fmt::format("{}: expected one JSON object", tool));
    Reading r;
    for (const auto& [k, v] : j.items())
        if (v.is_number() && !v.is_boolean())
            if (const auto x = json_number(v))
                r.metrics[k] = *x;
    for (const auto& a : aliases)
        for (const auto& k : a.keys)
            if (r.metrics.count(k)) {
                r.metrics[a.metric] = r.metrics[k];
                break;
            }
    for (const auto& k : fingerprint_keys)
        if (j.contains(k) && !j[k].is_object() && !j[k].is_array())
            r.fingerprint[k] = scalar_text(j[k]); // null too (Infinity/NaN read as null): both arms compare it
    return r;
}

// Each tool's fingerprint fields: what read() reports and fingerprint_fields() lists.
const std::vector<std::string>& vllm_fingerprint()
{
    static const std::vector<std::string> f = {"model_id", "backend", "endpoint_type", "dataset_name", "num_prompts",
        "request_rate", "max_concurrency", "total_input_tokens", "burstiness"};
    return f;
}
const std::vector<std::string>& sglang_fingerprint()
{
    static const std::vector<std::string> f = {"backend", "dataset_name", "request_rate", "max_concurrency",
        "sharegpt_output_len", "random_input_len", "random_output_len", "random_range_ratio", "total_input"};
    return f;
}
const std::vector<std::string>& genai_perf_fingerprint() // of its input_config
{
    static const std::vector<std::string> f = {"model", "concurrency", "request_rate", "output_tokens_mean",
        "synthetic_input_tokens_mean", "num_prompts", "input_file", "endpoint_type"};
    return f;
}

std::vector<KeySpec> latency_keys(const std::string& e2e_key)
{
    return {{"mean_ttft_ms (else median_ttft_ms)", "ttft_ms", "ms", Direction::Lower,
                "time to first token, mean over requests"},
        {"mean_tpot_ms (else median_tpot_ms)", "tpot_ms", "ms", Direction::Lower,
            "per-request (latency-ttft)/(out-1), mean"},
        {"mean_itl_ms (else median_itl_ms)", "itl_ms", "ms", Direction::Lower,
            "gap between streamed chunks, pooled, mean"},
        {"mean_" + e2e_key + " (else median_)", "e2el_ms", "ms", Direction::Lower, "request send to last token, mean"},
        {"{mean,median,std,pN}_{ttft,tpot,itl}_ms", "(same key)", "ms", Direction::Lower,
            "every statistic, under its own key"},
        {"output_throughput", "output_tok_s", "tok/s", Direction::Higher, "output tokens per second of wall time"},
        {"request_throughput", "request_per_s", "req/s", Direction::Higher, "completed requests per second"}};
}

class VllmAdapter : public Adapter {
public:
    std::string name() const override { return "vllm"; }
    std::string description() const override
    {
        return "vLLM `vllm bench serve --save-result` (and legacy benchmark_serving.py) JSON: one object";
    }
    std::vector<KeySpec> keys() const override
    {
        auto k = latency_keys("e2el_ms");
        k.push_back(
            {"total_token_throughput", "total_tok_s", "tok/s", Direction::Higher, "input+output tokens per second"});
        k.push_back({"request_goodput (legacy \"request_goodput:\")", "request_goodput", "req/s", Direction::Higher,
            "requests within the --goodput SLOs per second"});
        k.push_back(
            {"failed", "failed_requests", "requests", Direction::Lower, "requests that failed (> 0: inconclusive)"});
        k.push_back({"completed", "completed", "requests", Direction::Higher, "requests that completed"});
        return k;
    }
    bool detects(const std::string& text) const override
    {
        const auto j = parse_lenient_json(text);
        return j && j->is_object() && j->contains("completed") && j->contains("request_throughput")
            && (j->contains("mean_ttft_ms") || j->contains("duration")) && !j->contains("total_input")
            && !j->contains("mean_e2e_latency_ms");
    }
    Reading read(const std::string& text) const override
    {
        auto j = parse_lenient_json(text);
        if (!j) // --append-result: one object per line, the last is this run's
            j = last_json_line(text);
        if (!j)
            throw AdapterError("vllm: not JSON");
        if (j->contains("request_goodput:") && !j->contains("request_goodput"))
            (*j)["request_goodput"] = (*j)["request_goodput:"];
        Reading r = read_flat("vllm", *j,
            {{"ttft_ms", {"mean_ttft_ms", "median_ttft_ms"}}, {"tpot_ms", {"mean_tpot_ms", "median_tpot_ms"}},
                {"itl_ms", {"mean_itl_ms", "median_itl_ms"}}, {"e2el_ms", {"mean_e2el_ms", "median_e2el_ms"}},
                {"output_tok_s", {"output_throughput"}}, {"total_tok_s", {"total_token_throughput"}},
                {"request_per_s", {"request_throughput"}}, {"failed_requests", {"failed"}}},
            vllm_fingerprint());
        r.metrics.erase("request_goodput:");
        if (!r.metrics.count("request_per_s") && !r.metrics.count("ttft_ms"))
            throw AdapterError("vllm: neither request_throughput nor mean_ttft_ms is a number");
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override { return vllm_fingerprint(); }
};

class SglangAdapter : public Adapter {
public:
    std::string name() const override { return "sglang"; }
    std::string description() const override
    {
        return "SGLang `python -m sglang.bench_serving --output-file X.jsonl`: the last line (both key generations; "
               "bare "
               "Infinity/NaN read as missing)";
    }
    std::vector<KeySpec> keys() const override
    {
        auto k = latency_keys("e2e_latency_ms");
        k.push_back(
            {"total_throughput", "total_tok_s", "tok/s", Direction::Higher, "input+output tokens per second (newer)"});
        k.push_back(
            {"total_input | total_input_tokens", "(fingerprint)", "tokens", Direction::Lower, "both generations"});
        return k;
    }
    bool detects(const std::string& text) const override
    {
        const auto j = last_json_line(text);
        return j && j->contains("completed") && j->contains("request_throughput")
            && (j->contains("total_input") || j->contains("mean_e2e_latency_ms") || j->contains("median_e2e_latency_ms")
                || j->contains("total_output_tokens_retokenized"));
    }
    Reading read(const std::string& text) const override
    {
        auto j = last_json_line(text);
        if (!j)
            throw AdapterError("sglang: no line of the output is a JSON object");
        if (j->contains("total_input_tokens") && !j->contains("total_input"))
            (*j)["total_input"] = (*j)["total_input_tokens"];
        if (j->contains("total_output_tokens") && !j->contains("total_output"))
            (*j)["total_output"] = (*j)["total_output_tokens"];
        Reading r = read_flat("sglang", *j,
            {{"ttft_ms", {"mean_ttft_ms", "median_ttft_ms"}}, {"tpot_ms", {"mean_tpot_ms", "median_tpot_ms"}},
                {"itl_ms", {"mean_itl_ms", "median_itl_ms"}},
                {"e2el_ms", {"mean_e2e_latency_ms", "median_e2e_latency_ms"}}, {"output_tok_s", {"output_throughput"}},
                {"total_tok_s", {"total_throughput"}}, {"request_per_s", {"request_throughput"}}},
            sglang_fingerprint());
        if (!r.metrics.count("request_per_s"))
            throw AdapterError("sglang: request_throughput is missing or not a number");
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override { return sglang_fingerprint(); }
};

// genai-perf / AIPerf JSON: {"time_to_first_token": {"unit","avg","p50",...}, ..., "input_config": {...}}.
// Units are read by key, not from "unit" (one version labels every non-time metric requests/sec).
const std::vector<std::pair<std::string, std::string>>& genai_canonical()
{
    static const std::vector<std::pair<std::string, std::string>> m
        = {{"time_to_first_token", "ttft_ms"}, {"inter_token_latency", "tpot_ms"}, {"request_latency", "e2el_ms"},
            {"output_token_throughput", "output_tok_s"}, {"request_throughput", "request_per_s"}};
    return m;
}

class GenaiPerfJsonAdapter : public Adapter {
public:
    std::string name() const override { return "genai-perf"; }
    std::string description() const override
    {
        return "genai-perf / AIPerf JSON export (*_genai_perf.json): per-metric {unit, avg, p25..p99, min, max, std}; "
               "its inter_token_latency is a per-request mean gap, so it is tpot_ms";
    }
    std::vector<KeySpec> keys() const override
    {
        return {{"time_to_first_token.avg", "ttft_ms", "ms", Direction::Lower, "time to first non-empty response"},
            {"inter_token_latency.avg", "tpot_ms", "ms", Direction::Lower, "per-request (latency-ttft)/(out-1): TPOT"},
            {"request_latency.avg", "e2el_ms", "ms", Direction::Lower, "request to last response"},
            {"output_token_throughput.avg", "output_tok_s", "tok/s", Direction::Higher, "output tokens per second"},
            {"request_throughput.avg", "request_per_s", "req/s", Direction::Higher, "requests per second"},
            {"METRIC.STAT", "(same key)", "by metric", Direction::Lower,
                "every statistic, e.g. time_to_first_token.p99"}};
    }
    static const json* metrics_of(const json& j)
    {
        if (j.contains("records") && j["records"].is_object()) // AIPerf nests them
            return &j["records"];
        return &j;
    }
    bool detects(const std::string& text) const override
    {
        const auto j = parse_lenient_json(text);
        if (!j || !j->is_object())
            return false;
        const json& m = *metrics_of(*j);
        return (m.contains("time_to_first_token") && m["time_to_first_token"].is_object())
            || (m.contains("request_throughput") && m["request_throughput"].is_object());
    }
    Reading read(const std::string& text) const override
    {
        const auto j = parse_lenient_json(text);
        if (!j || !j->is_object())
            throw AdapterError("genai-perf: not a JSON object");
        const json& m = *metrics_of(*j);
        Reading r;
        for (const auto& [k, v] : m.items()) {
            if (!v.is_object() || k == "input_config" || k == "telemetry_stats")
                continue;
            for (const auto& [stat, x] : v.items())
                if (const auto n = json_number(x); n && stat != "unit")
                    r.metrics[k + "." + stat] = *n;
        }
        for (const auto& [key, canonical] : genai_canonical())
            if (r.metrics.count(key + ".avg"))
                r.metrics[canonical] = r.metrics[key + ".avg"];
        if (r.metrics.empty())
            throw AdapterError("genai-perf: no metric object with numeric statistics");
        if (j->contains("input_config") && (*j)["input_config"].is_object())
            for (const auto& [k, v] : (*j)["input_config"].items())
                if (const auto& f = genai_perf_fingerprint(); std::find(f.begin(), f.end(), k) != f.end())
                    r.fingerprint[k] = v.is_null() ? "null" : scalar_text(v);
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override { return genai_perf_fingerprint(); }
};

std::string snake(std::string title)
{
    const auto paren = title.find(" (");
    if (paren != std::string::npos)
        title = title.substr(0, paren);
    for (auto& c : title)
        c = c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return title;
}

class GenaiPerfCsvAdapter : public Adapter {
public:
    std::string name() const override { return "genai-perf-csv"; }
    std::string description() const override
    {
        return "genai-perf CSV export (*_genai_perf.csv): 'Metric,avg,min,max,p99,...' rows titled e.g. 'Time To First "
               "Token (ms)', then 'Metric,Value' rows; thousands separators stripped";
    }
    std::vector<KeySpec> keys() const override
    {
        auto k = GenaiPerfJsonAdapter().keys();
        k.back().description = "every cell, as snake_case(row title).column, e.g. time_to_first_token.p99";
        return k;
    }
    bool detects(const std::string& text) const override { return text.rfind("Metric,", 0) == 0; }
    Reading read(const std::string& text) const override
    {
        Reading r;
        std::vector<std::string> header;
        for (const auto& row : parse_csv(text)) {
            if (row.empty() || row[0].empty()) {
                header.clear();
                continue;
            }
            if (row[0] == "Metric") {
                header = row;
                continue;
            }
            if (header.empty() || (header.size() > 1 && header[1] == "GPU"))
                continue; // telemetry sections: per GPU, not read
            const std::string key = snake(row[0]);
            for (size_t c = 1; c < row.size() && c < header.size(); ++c)
                if (const auto v = parse_number(row[c]))
                    r.metrics[key + "." + (header[c] == "Value" ? std::string("avg") : header[c])] = *v;
        }
        // The system rows say "(per sec)": output_token_throughput, request_throughput.
        for (const auto& [key, canonical] : genai_canonical())
            if (r.metrics.count(key + ".avg"))
                r.metrics[canonical] = r.metrics[key + ".avg"];
        if (r.metrics.empty())
            throw AdapterError("genai-perf-csv: no 'Metric,...' rows with numbers");
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override { return {}; } // none in the CSV
};

} // namespace

std::unique_ptr<Adapter> make_vllm_adapter()
{
    return std::make_unique<VllmAdapter>();
}
std::unique_ptr<Adapter> make_sglang_adapter()
{
    return std::make_unique<SglangAdapter>();
}
std::unique_ptr<Adapter> make_genai_perf_json_adapter()
{
    return std::make_unique<GenaiPerfJsonAdapter>();
}
std::unique_ptr<Adapter> make_genai_perf_csv_adapter()
{
    return std::make_unique<GenaiPerfCsvAdapter>();
}

} // namespace kwb::command
