// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Text helpers the adapters share: lenient JSON (bare Infinity/NaN), JSONL, CSV, units.
namespace kwb::command {

// Parses JSON where bare Infinity, -Infinity and NaN (Python's json.dumps) stand for numbers:
// they become null. nullopt when the text is not JSON.
std::optional<nlohmann::json> parse_lenient_json(const std::string& text);
// The last non-empty line that parses as a JSON object (append-only JSONL files).
std::optional<nlohmann::json> last_json_line(const std::string& text);
// Every non-empty line parsed as JSON; nullopt if any line is not JSON.
std::optional<std::vector<nlohmann::json>> json_lines(const std::string& text);

// RFC 4180 rows (quoted fields, doubled quotes); blank lines give empty rows.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);
// "1,234.5" -> 1234.5; nullopt for anything that is not a finite number.
std::optional<double> parse_number(std::string text);
// A JSON number, or a string holding one (nvbench writes values as strings). Finite only.
std::optional<double> json_number(const nlohmann::json& j);
// Factor from a time unit ("ns", "us", "usecond", "ms", "s", "second"...) to milliseconds.
std::optional<double> to_ms_factor(const std::string& unit);
// A scalar as fingerprint text ("16", "inf", "m").
std::string scalar_text(const nlohmann::json& j);

} // namespace kwb::command
