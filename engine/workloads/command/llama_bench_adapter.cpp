// SPDX-License-Identifier: GPL-3.0-or-later
// llama-bench -o json | jsonl | csv: one row per test (pp = prompt processing, tg = generation).
#include "workloads/command/adapter_text.h"
#include "workloads/command/builtin_adapters.h"

#include <fmt/format.h>

namespace kwb::command {
namespace {

using nlohmann::json;

std::string test_name(long long n_prompt, long long n_gen)
{
    if (n_prompt > 0 && n_gen > 0)
        return fmt::format("pp{}+tg{}", n_prompt, n_gen);
    return n_prompt > 0 ? fmt::format("pp{}", n_prompt) : fmt::format("tg{}", n_gen);
}

// The per-row settings kept in the fingerprint (each from its first row), beside "tests".
const std::vector<std::string>& row_fingerprint()
{
    static const std::vector<std::string> f
        = {"model_type", "model_filename", "n_batch", "n_ubatch", "n_gpu_layers", "type_k", "type_v", "n_depth"};
    return f;
}

class LlamaBenchAdapter : public Adapter {
public:
    std::string name() const override { return "llama-bench"; }
    std::string description() const override
    {
        return "llama.cpp llama-bench -o json|jsonl|csv: tokens/s per test row (pp: prefill, tg: generation)";
    }
    std::vector<KeySpec> keys() const override
    {
        return {{"avg_ts (tg row)", "tg_tok_s", "tok/s", Direction::Higher, "generation tokens/s, mean of repetitions"},
            {"avg_ts (pp row)", "pp_tok_s", "tok/s", Direction::Higher, "prompt-processing tokens/s"},
            {"avg_ts[TEST]", "avg_ts[TEST]", "tok/s", Direction::Higher, "every row, e.g. avg_ts[pp512]"},
            {"stddev_ts[TEST]", "stddev_ts[TEST]", "tok/s", Direction::Lower, "sample stddev over repetitions"},
            {"avg_ns[TEST]", "avg_ms[TEST]", "ms", Direction::Lower, "time per test run (ns in the file)"}};
    }
    static std::optional<std::vector<json>> rows(const std::string& text)
    {
        if (const auto j = parse_lenient_json(text)) {
            if (j->is_array())
                return j->get<std::vector<json>>();
            if (j->is_object())
                return std::vector<json> {*j};
        }
        if (auto lines = json_lines(text))
            return lines;
        const auto csv = parse_csv(text);
        if (csv.size() < 2)
            return std::nullopt;
        const auto& header = csv[0];
        if (std::find(header.begin(), header.end(), "avg_ts") == header.end())
            return std::nullopt;
        std::vector<json> out;
        for (size_t i = 1; i < csv.size(); ++i) {
            if (csv[i].size() != header.size())
                continue;
            json o = json::object();
            for (size_t c = 0; c < header.size(); ++c) {
                const auto v = parse_number(csv[i][c]);
                o[header[c]] = v ? json(*v) : json(csv[i][c]);
            }
            out.push_back(std::move(o));
        }
        return out;
    }
    bool detects(const std::string& text) const override
    {
        const auto r = rows(text);
        return r && !r->empty() && r->front().is_object() && r->front().contains("avg_ts")
            && r->front().contains("n_gen");
    }
    Reading read(const std::string& text) const override
    {
        const auto rs = rows(text);
        if (!rs || rs->empty())
            throw AdapterError("llama-bench: neither JSON, JSONL nor CSV with an avg_ts column");
        Reading r;
        for (const auto& row : *rs) {
            const auto np = json_number(row.value("n_prompt", json(0)));
            const auto ng = json_number(row.value("n_gen", json(0)));
            const auto ts = json_number(row.value("avg_ts", json()));
            if (!np || !ng || !ts)
                throw AdapterError("llama-bench: a row lacks numeric n_prompt, n_gen or avg_ts");
            const std::string test = test_name(static_cast<long long>(*np), static_cast<long long>(*ng));
            r.metrics[fmt::format("avg_ts[{}]", test)] = *ts;
            if (const auto sd = json_number(row.value("stddev_ts", json())))
                r.metrics[fmt::format("stddev_ts[{}]", test)] = *sd;
            if (const auto ns = json_number(row.value("avg_ns", json())))
                r.metrics[fmt::format("avg_ms[{}]", test)] = *ns * 1e-6;
            if (*ng == 0 && !r.metrics.count("pp_tok_s"))
                r.metrics["pp_tok_s"] = *ts;
            if (*np == 0 && !r.metrics.count("tg_tok_s"))
                r.metrics["tg_tok_s"] = *ts;
            r.fingerprint["tests"] += (r.fingerprint["tests"].empty() ? "" : ",") + test;
            for (const auto& k : row_fingerprint())
                if (row.contains(k) && !row[k].is_null() && !r.fingerprint.count(k))
                    r.fingerprint[k] = scalar_text(row[k]);
        }
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override
    {
        std::vector<std::string> f = {"tests"};
        f.insert(f.end(), row_fingerprint().begin(), row_fingerprint().end());
        return f;
    }
};

} // namespace

std::unique_ptr<Adapter> make_llama_bench_adapter(const nlohmann::json&)
{
    return std::make_unique<LlamaBenchAdapter>();
}

} // namespace kwb::command
