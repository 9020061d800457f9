// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace kwb {

// A document that does not have the shape it must have. The message names the field by its path
// (e.g. "experiments[0].plan.runs_per_arm") and says what is wrong with it.
class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads one JSON object, remembering where it sits in the document so every error names its
// field. Missing optional fields take their defaults; present fields of the wrong type are errors.
class JsonReader {
public:
    JsonReader(const nlohmann::json& value, std::string path);

    const nlohmann::json& json() const { return value_; }
    const std::string& path() const { return path_; }
    std::string field_path(std::string_view key) const;

    bool has(std::string_view key) const;
    JsonReader object(std::string_view key) const; // required object
    std::optional<JsonReader> optional_object(std::string_view key) const;
    const nlohmann::json& array(std::string_view key) const; // required; empty if missing? no: error
    const nlohmann::json* optional_array(std::string_view key) const;
    JsonReader element(const nlohmann::json& array, size_t index, std::string_view key) const;

    std::string string(std::string_view key) const;
    std::string string_or(std::string_view key, std::string fallback) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    double number(std::string_view key) const;
    double number_or(std::string_view key, double fallback) const;
    std::optional<double> optional_number(std::string_view key) const;
    long long integer(std::string_view key) const;
    long long integer_or(std::string_view key, long long fallback) const;
    bool boolean_or(std::string_view key, bool fallback) const;

    [[noreturn]] void fail(std::string_view key, std::string_view problem) const;

private:
    const nlohmann::json* find(std::string_view key) const;

    const nlohmann::json& value_;
    std::string path_;
};

} // namespace kwb
