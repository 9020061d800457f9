// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/adapter_text.h"

#include "workloads/command/parse_budget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace kwb::command {

namespace {

using nlohmann::json;

// nlohmann's DOM built through its SAX interface, so the parse can look at the clock: every
// 4096 values it checks the budget in scope (parse_budget.h) and gives up once it is spent.
class BudgetedDom {
public:
    explicit BudgetedDom(json& root)
        : root_(root)
    {
    }
    bool null() { return put(nullptr); }
    bool boolean(bool v) { return put(v); }
    bool number_integer(json::number_integer_t v) { return put(v); }
    bool number_unsigned(json::number_unsigned_t v) { return put(v); }
    bool number_float(json::number_float_t v, const json::string_t&) { return put(v); }
    bool string(json::string_t& v) { return put(std::move(v)); }
    bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
    bool start_object(std::size_t)
    {
        stack_.push_back(place(json::object()));
        return tick();
    }
    bool key(json::string_t& k)
    {
        slot_ = &(*stack_.back())[k];
        return true;
    }
    bool end_object()
    {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t)
    {
        stack_.push_back(place(json::array()));
        return tick();
    }
    bool end_array()
    {
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const json::exception&) { return false; }
    bool out_of_budget() const { return out_of_budget_; }

private:
    json* place(json&& v)
    {
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        json& top = *stack_.back();
        if (top.is_array()) {
            top.push_back(std::move(v));
            return &top.back();
        }
        *slot_ = std::move(v);
        return slot_;
    }
    bool put(json&& v)
    {
        place(std::move(v));
        return tick();
    }
    bool tick()
    {
        if (++events_ % 4096 != 0)
            return true;
        try {
            check_parse_budget();
        } catch (const ParseInterrupted&) {
            out_of_budget_ = true;
            return false;
        }
        return true;
    }

    json& root_;
    std::vector<json*> stack_;
    json* slot_ = nullptr;
    std::size_t events_ = 0;
    bool out_of_budget_ = false;
};

std::optional<json> parse_lenient_json_uncached(const std::string& text)
{
    std::string clean;
    clean.reserve(text.size());
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        if ((i & 0xfffff) == 0) // every MiB
            check_parse_budget();
        const char c = text[i];
        if (in_string) {
            clean += c;
            if (c == '\\' && i + 1 < text.size())
                clean += text[++i];
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (text.compare(i, 9, "-Infinity") == 0) {
            clean += "null";
            i += 8;
            continue;
        } else if (text.compare(i, 8, "Infinity") == 0) {
            clean += "null";
            i += 7;
            continue;
        } else if (text.compare(i, 3, "NaN") == 0) {
            clean += "null";
            i += 2;
            continue;
        }
        clean += c;
    }
    json j;
    BudgetedDom dom(j);
    const bool ok = json::sax_parse(clean, &dom);
    if (dom.out_of_budget())
        check_parse_budget(); // throws: the budget that stopped the parse
    if (!ok)
        return std::nullopt;
    return j;
}

// Whether a line could hold a JSON object: '{' first after any blanks. Lines that cannot are
// skipped unparsed (a megabyte array on one line is not a JSONL record).
bool may_be_object(const std::string& line)
{
    for (const char c : line)
        if (!std::isspace(static_cast<unsigned char>(c)))
            return c == '{';
    return false;
}

} // namespace

std::optional<nlohmann::json> parse_lenient_json(const std::string& text)
{
    ParseBudget* budget = ParseBudget::current();
    if (budget)
        if (const auto* kept = budget->kept(text))
            return *kept;
    auto parsed = parse_lenient_json_uncached(text);
    if (budget)
        budget->keep(text, parsed);
    return parsed;
}

std::optional<std::vector<nlohmann::json>> json_lines(const std::string& text)
{
    // One line (a single document, maybe megabytes): the whole text's kept parse serves.
    const auto newline = text.find('\n');
    if (newline == std::string::npos
        || std::all_of(
            text.begin() + static_cast<long>(newline), text.end(), [](unsigned char c) { return std::isspace(c); })) {
        auto j = parse_lenient_json(text);
        if (!j)
            return std::nullopt;
        return std::vector<nlohmann::json> {std::move(*j)};
    }
    std::vector<nlohmann::json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        check_parse_budget();
        if (std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); }))
            continue;
        auto j = parse_lenient_json(line);
        if (!j)
            return std::nullopt;
        out.push_back(std::move(*j));
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

std::optional<nlohmann::json> last_json_line(const std::string& text)
{
    std::istringstream in(text);
    std::string line;
    std::optional<nlohmann::json> last;
    while (std::getline(in, line)) {
        check_parse_budget();
        if (!may_be_object(line))
            continue;
        auto j = parse_lenient_json(line);
        if (j && j->is_object())
            last = std::move(j);
    }
    return last;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text)
{
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (size_t i = 0; i < text.size(); ++i) {
        if ((i & 0xffff) == 0) // every 64 KiB
            check_parse_budget();
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            if (any || !field.empty())
                row.push_back(std::move(field));
            rows.push_back(std::move(row));
            row.clear();
            field.clear();
            any = false;
        } else {
            field += c;
            any = true;
        }
    }
    if (any || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

std::optional<double> parse_number(std::string text)
{
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
    size_t start = 0;
    while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])))
        ++start;
    text = text.substr(start);
    if (text.empty())
        return std::nullopt;
    try {
        size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size() || !std::isfinite(v))
            return std::nullopt;
        return v;
    } catch (...) {
        return std::nullopt;
    }
}

std::optional<double> json_number(const nlohmann::json& j)
{
    if (j.is_number()) {
        const double v = j.get<double>();
        return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
    }
    if (j.is_string())
        return parse_number(j.get<std::string>());
    return std::nullopt;
}

std::optional<double> to_ms_factor(const std::string& unit)
{
    std::string u;
    for (char c : unit)
        u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (u == "ns" || u == "nsecond" || u == "nanosecond" || u == "nanoseconds")
        return 1e-6;
    if (u == "us" || u == "usecond" || u == "microsecond" || u == "microseconds")
        return 1e-3;
    if (u == "ms" || u == "msecond" || u == "millisecond" || u == "milliseconds")
        return 1.0;
    if (u == "s" || u == "second" || u == "seconds" || u == "sec")
        return 1e3;
    return std::nullopt;
}

std::string scalar_text(const nlohmann::json& j)
{
    if (j.is_string())
        return j.get<std::string>();
    return j.dump();
}

} // namespace kwb::command
