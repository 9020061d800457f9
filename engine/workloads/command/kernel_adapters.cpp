// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel benchmarks: nvbench --json, Google Benchmark --benchmark_format=json, ncu --csv.
#include "workloads/command/adapter_text.h"
#include "workloads/command/builtin_adapters.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

namespace kwb::command {
namespace {

using nlohmann::json;

bool contains(const std::string& text, const std::string& part)
{
    return part.empty() || text.find(part) != std::string::npos;
}

// nvbench: {"benchmarks":[{"name", "states":[{"name", "summaries":[{"tag"|"name", "data":[{"name":"value",
// "value":"1.2e-05"}]}]}]}]}. Times are seconds (as strings).
class NvbenchAdapter : public Adapter {
public:
    explicit NvbenchAdapter(std::string select)
        : select_(std::move(select))
    {
    }
    std::string name() const override { return "nvbench"; }
    std::string description() const override
    {
        return "nvbench --json FILE: the cold GPU time of one state (first, or the one --adapter-select names)";
    }
    std::vector<KeySpec> keys() const override
    {
        return {{"nv/cold/time/gpu/mean", "time_ms", "ms", Direction::Lower,
                    "mean cold GPU time per launch (s in the file)"},
            {"nv/cold/time/cpu/mean", "cpu_time_ms", "ms", Direction::Lower, "mean cold CPU (host) time per launch"},
            {"nv/batch/time/gpu/mean", "batch_time_ms", "ms", Direction::Lower,
                "mean GPU time per launch in batched runs"},
            {"nv/cold/time/gpu/stdev/relative", "gpu_noise_pct", "%", Direction::Lower,
                "relative stdev of cold GPU time"},
            {"nv/cold/sample_size", "sample_size", "", Direction::Higher, "cold samples nvbench took"}};
    }
    bool detects(const std::string& text) const override
    {
        const auto j = parse_lenient_json(text);
        return j && j->is_object() && j->contains("benchmarks") && (*j)["benchmarks"].is_array()
            && !(*j)["benchmarks"].empty() && (*j)["benchmarks"][0].is_object()
            && (*j)["benchmarks"][0].contains("states");
    }
    Reading read(const std::string& text) const override
    {
        const auto j = parse_lenient_json(text);
        if (!j || !j->is_object() || !j->contains("benchmarks"))
            throw AdapterError("nvbench: not nvbench JSON (no \"benchmarks\" array)");
        for (const auto& b : (*j)["benchmarks"]) {
            const std::string bench = b.value("name", "");
            if (!b.contains("states") || !b["states"].is_array())
                continue;
            for (const auto& s : b["states"]) {
                const std::string state = s.value("name", "");
                if (!contains(bench + " " + state, select_) || !s.contains("summaries"))
                    continue;
                if (s.value("is_skipped", false))
                    continue;
                Reading r;
                for (const auto& sum : s["summaries"]) {
                    const std::string tag = sum.contains("tag") ? sum.value("tag", "") : sum.value("name", "");
                    std::optional<double> v;
                    if (sum.contains("data"))
                        for (const auto& d : sum["data"])
                            if (d.value("name", "") == "value")
                                v = json_number(d.contains("value") ? d["value"] : json());
                    if (!v)
                        continue;
                    for (const auto& k : keys())
                        if (k.key == tag)
                            r.metrics[k.metric] = k.unit == "ms" ? *v * 1e3 : k.unit == "%" ? *v * 100 : *v;
                }
                if (!r.metrics.count("time_ms"))
                    throw AdapterError(
                        fmt::format("nvbench: state '{}' of '{}' has no nv/cold/time/gpu/mean summary", state, bench));
                r.fingerprint = {{"benchmark", bench}, {"state", state}}; // as fingerprint_fields()
                return r;
            }
        }
        throw AdapterError(select_.empty() ? "nvbench: no benchmark state with summaries"
                                           : fmt::format("nvbench: no state matches '{}'", select_));
    }

    std::vector<std::string> fingerprint_fields() const override { return {"benchmark", "state"}; }

private:
    std::string select_;
};

// Google Benchmark: {"context":{...}, "benchmarks":[{"name", "run_name", "run_type": "iteration"|"aggregate",
// "aggregate_name", "real_time", "cpu_time", "time_unit", counters...}]}.
class GbenchAdapter : public Adapter {
public:
    explicit GbenchAdapter(std::string select)
        : select_(std::move(select))
    {
    }
    std::string name() const override { return "gbench"; }
    std::string description() const override
    {
        return "Google Benchmark --benchmark_format=json (or --benchmark_out=FILE): one benchmark's real and CPU "
               "time; the mean aggregate when repetitions were run, else the mean of its iteration rows";
    }
    std::vector<KeySpec> keys() const override
    {
        return {{"real_time", "time_ms", "ms", Direction::Lower, "wall time per iteration, converted from time_unit"},
            {"cpu_time", "cpu_time_ms", "ms", Direction::Lower, "CPU time per iteration, converted from time_unit"},
            {"items_per_second", "items_per_second", "1/s", Direction::Higher, "counter, when the benchmark sets it"},
            {"bytes_per_second", "bytes_per_second", "B/s", Direction::Higher, "counter, when the benchmark sets it"},
            {"aggregate_name=median", "median_time_ms", "ms", Direction::Lower, "median aggregate of real_time"},
            {"aggregate_name=cv", "time_cv_pct", "%", Direction::Lower, "coefficient of variation of real_time"}};
    }
    bool detects(const std::string& text) const override
    {
        const auto j = parse_lenient_json(text);
        return j && j->is_object() && j->contains("context") && j->contains("benchmarks")
            && (*j)["benchmarks"].is_array() && !(*j)["benchmarks"].empty()
            && (*j)["benchmarks"][0].contains("real_time");
    }
    Reading read(const std::string& text) const override
    {
        const auto j = parse_lenient_json(text);
        if (!j || !j->is_object() || !j->contains("benchmarks") || !(*j)["benchmarks"].is_array())
            throw AdapterError("gbench: not Google Benchmark JSON (no \"benchmarks\" array)");
        std::string run;
        for (const auto& b : (*j)["benchmarks"]) {
            const std::string rn = b.value("run_name", b.value("name", ""));
            if (contains(rn, select_) && b.value("error_occurred", false))
                throw AdapterError(
                    fmt::format("gbench: benchmark '{}' reported an error: {}", rn, b.value("error_message", "")));
            if (run.empty() && contains(rn, select_))
                run = rn;
        }
        if (run.empty())
            throw AdapterError(select_.empty() ? "gbench: no benchmark in the output"
                                               : fmt::format("gbench: no benchmark matches '{}'", select_));
        Reading r;
        std::vector<const json*> iterations;
        const json* mean = nullptr;
        for (const auto& b : (*j)["benchmarks"]) {
            if (b.value("run_name", b.value("name", "")) != run)
                continue;
            if (b.value("run_type", "iteration") == "aggregate") {
                const std::string agg = b.value("aggregate_name", "");
                const auto f = to_ms_factor(b.value("time_unit", "ns"));
                const auto rt = json_number(b.value("real_time", json()));
                if (agg == "mean")
                    mean = &b;
                else if (agg == "median" && f && rt)
                    r.metrics["median_time_ms"] = *rt * *f;
                else if (agg == "cv" && rt)
                    r.metrics["time_cv_pct"] = *rt * 100; // cv aggregates are a ratio, time_unit aside
            } else {
                iterations.push_back(&b);
            }
        }
        std::vector<const json*> rows = mean ? std::vector<const json*> {mean} : iterations;
        if (rows.empty())
            throw AdapterError(fmt::format("gbench: benchmark '{}' has no iteration or mean row", run));
        const auto average = [&](const char* key, bool time) -> std::optional<double> {
            double sum = 0;
            for (const auto* b : rows) {
                const auto v = json_number(b->value(key, json()));
                const auto f = time ? to_ms_factor(b->value("time_unit", "ns")) : std::optional<double>(1.0);
                if (!v || !f)
                    return std::nullopt;
                sum += *v * *f;
            }
            return sum / static_cast<double>(rows.size());
        };
        const auto rt = average("real_time", true);
        if (!rt)
            throw AdapterError(
                fmt::format("gbench: benchmark '{}' has no numeric real_time with a known time_unit", run));
        r.metrics["time_ms"] = *rt;
        if (const auto ct = average("cpu_time", true))
            r.metrics["cpu_time_ms"] = *ct;
        for (const char* counter : {"items_per_second", "bytes_per_second"})
            if (const auto v = average(counter, false))
                r.metrics[counter] = *v;
        if (!mean && iterations.size() > 1)
            r.notes.push_back(fmt::format("gbench: mean of {} repetition rows (no mean aggregate)", iterations.size()));
        r.fingerprint["benchmark"] = run;
        return r;
    }

    std::vector<std::string> fingerprint_fields() const override { return {"benchmark"}; }

private:
    std::string select_;
};

// ncu --csv: "long" rows (Kernel Name, Metric Name, Metric Unit, Metric Value) by default, or
// --page raw: one column per metric with a units row under the header.
class NcuAdapter : public Adapter {
public:
    explicit NcuAdapter(std::string select)
        : select_(std::move(select))
    {
    }
    std::string name() const override { return "ncu"; }
    std::string description() const override
    {
        return "Nsight Compute ncu --csv (details or --page raw): per kernel name, gpu__time_duration.sum and any "
               "other metric column, averaged over that kernel's launches";
    }
    std::vector<KeySpec> keys() const override
    {
        return {{"gpu__time_duration.sum", "time_ms", "ms", Direction::Lower,
                    "kernel duration (unit from the Metric Unit column); of the kernel --adapter-select names, else "
                    "the first"},
            {"METRIC", "METRIC[KERNEL]", "as ncu reports", Direction::Lower,
                "every numeric metric, per kernel name; also METRIC alone for the selected kernel"}};
    }
    bool detects(const std::string& text) const override
    {
        return text.find("\"Kernel Name\"") != std::string::npos && text.find("\"ID\"") != std::string::npos;
    }
    Reading read(const std::string& text) const override
    {
        // ncu prints ==PROF== lines and the application's own output before the table.
        const auto at = text.find("\"ID\"");
        if (at == std::string::npos)
            throw AdapterError("ncu: no CSV table with an \"ID\" column (run ncu with --csv)");
        const auto rows = parse_csv(text.substr(at));
        const auto& header = rows.at(0);
        const auto col = [&](const std::string& n) -> int {
            const auto it = std::find(header.begin(), header.end(), n);
            return it == header.end() ? -1 : static_cast<int>(it - header.begin());
        };
        const int kernel = col("Kernel Name");
        if (kernel < 0)
            throw AdapterError("ncu: the CSV has no \"Kernel Name\" column");
        // kernel -> metric -> (sum, count); units per metric
        std::vector<std::string> order;
        std::map<std::string, std::map<std::string, std::pair<double, int>>> values;
        std::map<std::string, std::string> units;
        const auto add = [&](const std::string& k, const std::string& metric, const std::string& unit,
                             const std::string& text_value) {
            const auto v = parse_number(text_value);
            if (!v)
                return;
            if (!values.count(k))
                order.push_back(k);
            auto& [sum, n] = values[k][metric];
            sum += *v;
            ++n;
            units[k + "\n" + metric] = unit;
        };
        const int mname = col("Metric Name"), munit = col("Metric Unit"), mvalue = col("Metric Value");
        if (mname >= 0 && mvalue >= 0) {
            for (size_t i = 1; i < rows.size(); ++i) {
                const auto& row = rows[i];
                if (static_cast<int>(row.size()) <= std::max({kernel, mname, mvalue}))
                    continue;
                add(row[kernel], row[mname], munit >= 0 && munit < static_cast<int>(row.size()) ? row[munit] : "",
                    row[mvalue]);
            }
        } else {
            // raw page: row 1 holds the units
            const auto& unit_row = rows.size() > 1 ? rows[1] : std::vector<std::string> {};
            for (size_t i = 2; i < rows.size(); ++i)
                for (size_t c = 0; c < rows[i].size() && c < header.size(); ++c)
                    if (static_cast<int>(c) != kernel && header[c].find("__") != std::string::npos)
                        add(rows[i][kernel], header[c], c < unit_row.size() ? unit_row[c] : "", rows[i][c]);
        }
        std::string chosen;
        for (const auto& k : order)
            if (chosen.empty() && contains(k, select_))
                chosen = k;
        if (chosen.empty())
            throw AdapterError(order.empty() ? "ncu: no kernel rows with numeric metric values"
                                             : fmt::format("ncu: no kernel matches '{}'", select_));
        Reading r;
        for (const auto& k : order)
            for (const auto& [metric, sn] : values[k]) {
                double v = sn.first / sn.second;
                r.metrics[fmt::format("{}[{}]", metric, k)] = v;
                if (k == chosen)
                    r.metrics[metric] = v;
            }
        const auto t = values[chosen].find("gpu__time_duration.sum");
        if (t == values[chosen].end())
            throw AdapterError(fmt::format("ncu: kernel '{}' has no gpu__time_duration.sum (add --metrics "
                                           "gpu__time_duration.sum)",
                chosen));
        const std::string& unit = units[chosen + "\n" + "gpu__time_duration.sum"];
        const auto f = to_ms_factor(unit);
        if (!f)
            throw AdapterError(fmt::format("ncu: unknown time unit '{}' of gpu__time_duration.sum", unit));
        r.metrics["time_ms"] = t->second.first / t->second.second * *f;
        r.fingerprint["kernel"] = chosen;
        for (const char* c : {"Grid Size", "Block Size"})
            if (const int i = col(c); i >= 0)
                for (size_t row = 1; row < rows.size(); ++row)
                    if (static_cast<int>(rows[row].size()) > std::max(i, kernel) && rows[row][kernel] == chosen) {
                        r.fingerprint[c] = rows[row][i];
                        break;
                    }
        return r;
    }

    std::vector<std::string> fingerprint_fields() const override { return {"kernel", "Grid Size", "Block Size"}; }

private:
    std::string select_;
};

} // namespace

std::string select_option(const nlohmann::json& options)
{
    return options.is_object() && options.contains("select") && options["select"].is_string()
        ? options["select"].get<std::string>()
        : std::string();
}

std::unique_ptr<Adapter> make_nvbench_adapter(const nlohmann::json& o)
{
    return std::make_unique<NvbenchAdapter>(select_option(o));
}
std::unique_ptr<Adapter> make_gbench_adapter(const nlohmann::json& o)
{
    return std::make_unique<GbenchAdapter>(select_option(o));
}
std::unique_ptr<Adapter> make_ncu_adapter(const nlohmann::json& o)
{
    return std::make_unique<NcuAdapter>(select_option(o));
}

} // namespace kwb::command
