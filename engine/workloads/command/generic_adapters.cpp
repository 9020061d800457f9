// SPDX-License-Identifier: GPL-3.0-or-later
// Adapters for in-house scripts: a key map (JSON pointer -> metric), regular expressions on the
// text, and the console block vLLM and SGLang print (the fallback when nothing else matches).
#include "workloads/command/adapter_text.h"
#include "workloads/command/builtin_adapters.h"
#include "workloads/command/parse_budget.h"

#include <fmt/format.h>
#include <regex>

namespace kwb::command {
namespace {

using nlohmann::json;

struct Mapped {
    std::string source; // JSON pointer or regex
    KeySpec spec;
};

Direction direction_of(const json& o, const std::string& what)
{
    const std::string d = o.value("direction", "lower");
    if (d == "lower")
        return Direction::Lower;
    if (d == "higher")
        return Direction::Higher;
    throw AdapterError(fmt::format("{}: direction must be lower or higher, got '{}'", what, d));
}

class KeymapAdapter : public Adapter {
public:
    explicit KeymapAdapter(const json& options)
    {
        if (!options.is_object() || !options.contains("map") || !options["map"].is_object() || options["map"].empty())
            throw AdapterError(
                "keymap: needs options {\"map\": {\"/json/pointer\": {\"metric\", \"unit\", \"direction\"}}}");
        for (const auto& [ptr, o] : options["map"].items()) {
            if (!o.is_object() || !o.contains("metric") || !o["metric"].is_string())
                throw AdapterError(fmt::format("keymap: map entry '{}' needs a \"metric\" name", ptr));
            try {
                (void)json::json_pointer(ptr);
            } catch (const json::exception&) {
                throw AdapterError(fmt::format("keymap: '{}' is not a JSON pointer (e.g. /results/mean_ms)", ptr));
            }
            map_.push_back({ptr,
                {ptr, o["metric"].get<std::string>(), o.value("unit", ""), direction_of(o, "keymap " + ptr),
                    "user key map"}});
        }
    }
    std::string name() const override { return "keymap"; }
    std::string description() const override
    {
        return "a user key map over JSON output (last JSON line for JSONL): JSON pointer -> metric name, unit, "
               "direction";
    }
    std::vector<KeySpec> keys() const override
    {
        std::vector<KeySpec> k;
        for (const auto& m : map_)
            k.push_back(m.spec);
        if (k.empty())
            k.push_back({"/json/pointer", "METRIC", "UNIT", Direction::Lower, "given in the arm's adapter options"});
        return k;
    }
    bool detects(const std::string&) const override { return false; }
    Reading read(const std::string& text) const override
    {
        auto j = parse_lenient_json(text);
        if (!j)
            j = last_json_line(text);
        if (!j)
            throw AdapterError("keymap: the output is not JSON");
        Reading r;
        for (const auto& m : map_) {
            const json::json_pointer p(m.source);
            if (!j->contains(p))
                throw AdapterError(fmt::format("keymap: {} is missing", m.source));
            const auto v = json_number((*j)[p]);
            if (!v)
                throw AdapterError(fmt::format("keymap: {} is {}, not a finite number", m.source, (*j)[p].dump()));
            r.metrics[m.spec.metric] = *v;
        }
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override { return {}; }
    const std::vector<Mapped>& map() const { return map_; }

private:
    std::vector<Mapped> map_;
};

class RegexAdapter : public Adapter {
public:
    explicit RegexAdapter(const json& options)
    {
        if (!options.is_object() || !options.contains("patterns") || !options["patterns"].is_array()
            || options["patterns"].empty())
            throw AdapterError(
                "regex: needs options {\"patterns\": [{\"regex\", \"metric\", \"unit\", \"direction\"}]}");
        for (const auto& o : options["patterns"]) {
            if (!o.is_object() || !o.contains("regex") || !o.contains("metric"))
                throw AdapterError("regex: each pattern needs \"regex\" (first group = the number) and \"metric\"");
            const std::string re = o["regex"].get<std::string>();
            try {
                regexes_.emplace_back(re, std::regex::ECMAScript | std::regex::multiline);
            } catch (const std::regex_error& e) {
                throw AdapterError(fmt::format("regex: '{}' does not compile: {}", re, e.what()));
            }
            patterns_.push_back({re,
                {re, o["metric"].get<std::string>(), o.value("unit", ""), direction_of(o, "regex " + re),
                    "first capture group of the last match"}});
        }
    }
    std::string name() const override { return "regex"; }
    std::string description() const override
    {
        return "regular expressions on the output: the first capture group of a pattern's last match is its metric";
    }
    std::vector<KeySpec> keys() const override
    {
        std::vector<KeySpec> k;
        for (const auto& p : patterns_)
            k.push_back(p.spec);
        return k;
    }
    bool detects(const std::string&) const override { return false; }
    Reading read(const std::string& text) const override
    {
        Reading r;
        for (size_t i = 0; i < patterns_.size(); ++i) {
            std::optional<std::string> last;
            check_parse_budget();
            for (auto it = std::sregex_iterator(text.begin(), text.end(), regexes_[i]); it != std::sregex_iterator();
                 ++it) {
                check_parse_budget();
                if (it->size() > 1)
                    last = (*it)[1].str();
            }
            if (!last)
                throw AdapterError(fmt::format("regex: '{}' matched nothing in the output", patterns_[i].source));
            const auto v = parse_number(*last);
            if (!v)
                throw AdapterError(
                    fmt::format("regex: '{}' captured '{}', not a finite number", patterns_[i].source, *last));
            r.metrics[patterns_[i].spec.metric] = *v;
        }
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override { return {}; }

private:
    std::vector<Mapped> patterns_;
    std::vector<std::regex> regexes_;
};

// "Mean TTFT (ms):   85.10" / "Output token throughput (tok/s):  621.4" (vLLM, SGLang consoles).
class ConsoleAdapter : public Adapter {
public:
    std::string name() const override { return "console"; }
    std::string description() const override
    {
        return "the 'Serving Benchmark Result' block vLLM and SGLang print: '<Mean|Median|P99> <TTFT|TPOT|ITL|E2EL> "
               "(ms): "
               "N' and '<Request|Output token|Total token> throughput (...): N'";
    }
    std::vector<KeySpec> keys() const override
    {
        return {
            {"Mean TTFT (ms)", "ttft_ms", "ms", Direction::Lower, "also mean_ttft_ms, median_ttft_ms, p99_ttft_ms..."},
            {"Mean TPOT (ms)", "tpot_ms", "ms", Direction::Lower, "per-request mean gap"},
            {"Mean ITL (ms)", "itl_ms", "ms", Direction::Lower, "gap between chunks"},
            {"Mean E2EL (ms) | Mean E2E Latency (ms)", "e2el_ms", "ms", Direction::Lower, "end to end"},
            {"Request throughput (req/s)", "request_per_s", "req/s", Direction::Higher, ""},
            {"Output token throughput (tok/s)", "output_tok_s", "tok/s", Direction::Higher, ""},
            {"Total token throughput (tok/s)", "total_tok_s", "tok/s", Direction::Higher, ""},
            {"Failed requests", "failed_requests", "requests", Direction::Lower, ""}};
    }
    bool detects(const std::string& text) const override
    {
        bool found = false;
        for_each_line(text, [&](const std::string& line) {
            found = found || std::regex_search(line, latency_re()) || std::regex_search(line, throughput_re());
        });
        return found;
    }
    // The block's lines one at a time: the budget (parse_budget.h) is checked between them, and a
    // line longer than any the block has is skipped (std::regex recurses per character matched,
    // so a megabyte of blanks after "Mean TTFT (ms):" would exhaust the stack).
    template<typename F> static void for_each_line(const std::string& text, F&& f)
    {
        constexpr std::size_t kLongest = 4096;
        for (std::size_t at = 0; at < text.size();) {
            check_parse_budget();
            const std::size_t end = std::min(text.find('\n', at), text.size());
            if (end - at <= kLongest)
                f(text.substr(at, end - at));
            at = end + 1;
        }
    }
    static const std::regex& latency_re()
    {
        static const std::regex re(
            R"((Mean|Median|P[0-9.]+) (TTFT|TPOT|ITL|E2EL|E2E Latency) \(ms\):\s+([0-9.]+))", std::regex::icase);
        return re;
    }
    static const std::regex& throughput_re()
    {
        static const std::regex re(
            R"((Request|Output token|Total token|Total) throughput \((req|tok)/s\):\s+([0-9.]+))", std::regex::icase);
        return re;
    }
    Reading read(const std::string& text) const override
    {
        Reading r;
        const auto lower = [](std::string s) {
            for (auto& c : s)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return s;
        };
        static const std::regex failed(R"(Failed requests:\s+([0-9]+))", std::regex::icase);
        for_each_line(text, [&](const std::string& line) {
            for (auto it = std::sregex_iterator(line.begin(), line.end(), latency_re()); it != std::sregex_iterator();
                 ++it) {
                std::string stat = lower((*it)[1].str()), what = lower((*it)[2].str());
                if (what == "e2e latency")
                    what = "e2el";
                const auto v = parse_number((*it)[3].str());
                if (!v)
                    continue;
                r.metrics[fmt::format("{}_{}_ms", stat, what)] = *v;
                if (stat == "mean")
                    r.metrics[what + "_ms"] = *v;
            }
            for (auto it = std::sregex_iterator(line.begin(), line.end(), throughput_re());
                 it != std::sregex_iterator(); ++it) {
                const std::string what = lower((*it)[1].str());
                const auto v = parse_number((*it)[3].str());
                if (!v)
                    continue;
                r.metrics[what == "request"      ? "request_per_s"
                        : what == "output token" ? "output_tok_s"
                                                 : "total_tok_s"]
                    = *v;
            }
            std::smatch m;
            if (!r.metrics.count("failed_requests") && std::regex_search(line, m, failed))
                r.metrics["failed_requests"] = std::stod(m[1].str());
        });
        if (r.metrics.empty())
            throw AdapterError("console: no 'Mean TTFT (ms): N' or 'throughput (tok/s): N' line in the output");
        return r;
    }
    std::vector<std::string> fingerprint_fields() const override { return {}; }
};

} // namespace

std::unique_ptr<Adapter> make_keymap_adapter(const nlohmann::json& o)
{
    return std::make_unique<KeymapAdapter>(o);
}
std::unique_ptr<Adapter> make_regex_adapter(const nlohmann::json& o)
{
    return std::make_unique<RegexAdapter>(o);
}
std::unique_ptr<Adapter> make_console_adapter()
{
    return std::make_unique<ConsoleAdapter>();
}

} // namespace kwb::command
