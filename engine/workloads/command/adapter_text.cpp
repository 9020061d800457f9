// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/adapter_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace kwb::command {

std::optional<nlohmann::json> parse_lenient_json(const std::string& text)
{
    std::string clean;
    clean.reserve(text.size());
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
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
    auto j = nlohmann::json::parse(clean, nullptr, false);
    if (j.is_discarded())
        return std::nullopt;
    return j;
}

std::optional<std::vector<nlohmann::json>> json_lines(const std::string& text)
{
    std::vector<nlohmann::json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
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
