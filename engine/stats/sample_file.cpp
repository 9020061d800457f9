// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/sample_file.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>

namespace kwb::stats {

SampleFileError::SampleFileError(std::string file, int line, std::string problem)
    : std::runtime_error(
        line > 0 ? fmt::format("{}:{}: {}", file, line, problem) : fmt::format("{}: {}", file, problem))
    , file_(std::move(file))
    , line_(line)
    , problem_(std::move(problem))
{
}

namespace {

std::string_view trim(std::string_view s)
{
    const auto ws = " \t\r\n\f\v";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos)
        return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

struct Line {
    int number;
    std::string_view text;
};

// The lines that count: not blank, not a '#' comment.
std::vector<Line> content_lines(std::string_view text, int& line_count)
{
    std::vector<Line> out;
    int number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        ++number;
        const std::string_view t = trim(text.substr(pos, end - pos));
        if (!t.empty() && t.front() != '#')
            out.push_back({number, t});
        pos = end + 1;
    }
    line_count = number;
    return out;
}

std::vector<std::string> split_csv(std::string_view line)
{
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    fields.emplace_back(trim(cur));
    return fields;
}

// The power of ten of a decimal token that from_chars found out of range ("1e-400": -400,
// "12e400": 401): below 0 it underflowed, else it overflowed.
long long decimal_magnitude(std::string_view token)
{
    if (!token.empty() && (token.front() == '-' || token.front() == '+'))
        token.remove_prefix(1);
    const auto e = token.find_first_of("eE");
    const std::string_view mantissa = token.substr(0, e);
    long long exponent = 0;
    if (e != std::string_view::npos) {
        std::string_view digits = token.substr(e + 1);
        const bool negative = !digits.empty() && digits.front() == '-';
        if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
            digits.remove_prefix(1);
        if (std::from_chars(digits.data(), digits.data() + digits.size(), exponent).ec != std::errc())
            exponent = 1'000'000; // beyond any double either way
        exponent = negative ? -exponent : exponent;
    }
    const auto dot = mantissa.find('.');
    const std::string_view whole = mantissa.substr(0, dot);
    const auto first = whole.find_first_not_of('0');
    if (first != std::string_view::npos)
        return exponent + static_cast<long long>(whole.size() - first) - 1;
    const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : mantissa.substr(dot + 1);
    const auto nonzero = fraction.find_first_not_of('0');
    return nonzero == std::string_view::npos ? 0 : exponent - static_cast<long long>(nonzero) - 1;
}

// A nonzero token that reads as 0: smaller than the smallest double (about 4.9e-324).
bool underflowed(std::string_view token, double value)
{
    return value == 0 && token.find_first_of("123456789") < token.find_first_of("eE");
}

double checked_value(std::string_view token, const std::string& file, int line)
{
    const auto v = parse_number(token);
    if (!v)
        throw SampleFileError(file, line, fmt::format("\"{}\" is not a number", token));
    // Finite but not representable: saying "not a finite number", or "not positive" of what reads
    // as 0, would blame the wrong thing.
    if (underflowed(token, *v))
        throw SampleFileError(file, line,
            fmt::format("\"{}\" is out of range: too small for a double (below about 4.9e-324, it reads as 0)", token));
    if (!std::isfinite(*v))
        throw SampleFileError(file, line, fmt::format("\"{}\" is not a finite number", token));
    if (*v <= 0)
        throw SampleFileError(file, line, fmt::format("{} is not positive (every value must be > 0)", token));
    if (*v > kMaxSampleValue)
        throw SampleFileError(
            file, line, fmt::format("{} is too large: values above 1e100 would overflow the statistics", token));
    return *v;
}

// A CSV header field names a column: it holds a letter and cannot be mistaken for a mistyped
// number (it parses as none and does not start like one: 0x10, 10abc and "10" are not names).
bool header_field(std::string_view f)
{
    if (f.empty() || parse_number(f))
        return false;
    const char c = f.front();
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')
        return false;
    return std::any_of(f.begin(), f.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)) != 0; });
}

std::string join(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "\"" : ", \"") + n + "\"";
    return out;
}

} // namespace

std::optional<double> parse_number(std::string_view token)
{
    token = trim(token);
    if (!token.empty() && token.front() == '+')
        token.remove_prefix(1);
    if (token.empty() || token.front() == '+')
        return std::nullopt;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ptr != token.data() + token.size())
        return std::nullopt;
    if (ec == std::errc::result_out_of_range) { // 1e999: a number, but not a finite one; 1e-400: 0 as strtod has it
        const double sign = token.front() == '-' ? -1 : 1;
        return decimal_magnitude(token) < 0 ? sign * 0.0 : sign * HUGE_VAL;
    }
    if (ec != std::errc())
        return std::nullopt;
    return v;
}

SampleSet parse_samples(std::string_view text, const std::string& file, const std::optional<std::string>& column)
{
    SampleSet set;
    set.file = file;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") // a UTF-8 byte-order mark (spreadsheet exports)
        text.remove_prefix(3);
    const std::vector<Line> lines = content_lines(text, set.line_count);
    const int last_line = std::max(1, set.line_count);
    if (lines.empty())
        throw SampleFileError(file, last_line, "no values (the file is empty or holds only comments)");

    if (parse_number(lines.front().text)) { // one number per line
        if (column)
            throw SampleFileError(file, lines.front().number,
                fmt::format("--column \"{}\" given, but the file holds bare numbers, not a CSV "
                            "header",
                    *column));
        for (const Line& l : lines) {
            set.values.push_back(checked_value(l.text, file, l.number));
            set.lines.push_back(l.number);
        }
        return set;
    }

    // A CSV file: the first line is the header.
    const std::vector<std::string> header = split_csv(lines.front().text);
    const int header_line = lines.front().number;
    for (const auto& field : header)
        if (!header_field(field))
            throw SampleFileError(file, header_line,
                fmt::format("\"{}\" is neither a number nor a CSV header (each header field names "
                            "a column: it holds a letter and does not start like a number)",
                    lines.front().text));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        rows.push_back(split_csv(lines[i].text));
        if (rows.back().size() != header.size())
            throw SampleFileError(file, lines[i].number,
                fmt::format("{} fields, but the header has {}", rows.back().size(), header.size()));
    }
    if (rows.empty())
        throw SampleFileError(file, last_line, "no values (a CSV header without rows)");

    std::size_t col = 0;
    if (column) {
        const auto it = std::find(header.begin(), header.end(), *column);
        if (it == header.end())
            throw SampleFileError(
                file, header_line, fmt::format("no column \"{}\" (columns: {})", *column, join(header)));
        col = static_cast<std::size_t>(it - header.begin());
    } else if (header.size() > 1) {
        std::vector<std::string> numeric;
        for (std::size_t c = 0; c < header.size(); ++c) {
            bool all = true;
            for (const auto& r : rows)
                all = all && parse_number(r[c]).has_value();
            if (all) {
                numeric.push_back(header[c]);
                col = c;
            }
        }
        if (numeric.empty())
            throw SampleFileError(
                file, header_line, fmt::format("no column holds only numbers (columns: {})", join(header)));
        if (numeric.size() > 1)
            throw SampleFileError(
                file, header_line, fmt::format("several numeric columns ({}): pick one with --column", join(numeric)));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        set.values.push_back(checked_value(rows[i][col], file, lines[i + 1].number));
        set.lines.push_back(lines[i + 1].number);
    }
    return set;
}

SampleSet read_sample_file(const std::string& path, const std::optional<std::string>& column)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw SampleFileError(path, 0, "cannot open the file");
    // Chunked, stopping past the limit: /dev/zero or a FIFO has no size to check up front.
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        if (text.size() + static_cast<std::size_t>(in.gcount()) > kMaxSampleFileBytes)
            throw SampleFileError(
                path, 0, fmt::format("larger than {} MiB, the limit for a sample file", kMaxSampleFileBytes >> 20));
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad())
        throw SampleFileError(path, 0, "cannot read the file");
    return parse_samples(text, path, column);
}

void check_paired_counts(const SampleSet& baseline, const SampleSet& treatment)
{
    if (baseline.values.size() == treatment.values.size())
        return;
    const int line = treatment.lines.empty() ? std::max(1, treatment.line_count) : treatment.lines.back();
    throw SampleFileError(treatment.file, line,
        fmt::format("{} values, but the baseline ({}) has {}: --paired needs equal counts", treatment.values.size(),
            baseline.file, baseline.values.size()));
}

} // namespace kwb::stats
