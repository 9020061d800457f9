// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/json_reader.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb {

JsonReader::JsonReader(const nlohmann::json& value, std::string path)
    : value_(value)
    , path_(std::move(path))
{
    if (!value_.is_object())
        throw FormatError(
            fmt::format("{}: expected an object, found {}", path_.empty() ? "document" : path_, value_.type_name()));
}

std::string JsonReader::field_path(std::string_view key) const
{
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonReader::fail(std::string_view key, std::string_view problem) const
{
    throw FormatError(fmt::format("field '{}': {}", field_path(key), problem));
}

const nlohmann::json* JsonReader::find(std::string_view key) const
{
    const auto it = value_.find(key);
    if (it == value_.end() || it->is_null())
        return nullptr;
    return &*it;
}

bool JsonReader::has(std::string_view key) const
{
    return find(key) != nullptr;
}

JsonReader JsonReader::object(std::string_view key) const
{
    const auto* v = find(key);
    if (!v)
        fail(key, "missing");
    if (!v->is_object())
        fail(key, fmt::format("expected an object, found {}", v->type_name()));
    return JsonReader(*v, field_path(key));
}

std::optional<JsonReader> JsonReader::optional_object(std::string_view key) const
{
    if (!find(key))
        return std::nullopt;
    return object(key);
}

const nlohmann::json& JsonReader::array(std::string_view key) const
{
    const auto* v = find(key);
    if (!v)
        fail(key, "missing");
    if (!v->is_array())
        fail(key, fmt::format("expected an array, found {}", v->type_name()));
    return *v;
}

const nlohmann::json* JsonReader::optional_array(std::string_view key) const
{
    if (!find(key))
        return nullptr;
    return &array(key);
}

JsonReader JsonReader::element(const nlohmann::json& array, size_t index, std::string_view key) const
{
    const auto path = fmt::format("{}[{}]", field_path(key), index);
    if (!array.at(index).is_object())
        throw FormatError(fmt::format("field '{}': expected an object, found {}", path, array.at(index).type_name()));
    return JsonReader(array.at(index), path);
}

std::string JsonReader::string(std::string_view key) const
{
    const auto* v = find(key);
    if (!v)
        fail(key, "missing");
    if (!v->is_string())
        fail(key, fmt::format("expected a string, found {}", v->type_name()));
    return v->get<std::string>();
}

std::string JsonReader::string_or(std::string_view key, std::string fallback) const
{
    return find(key) ? string(key) : std::move(fallback);
}

std::optional<std::string> JsonReader::optional_string(std::string_view key) const
{
    if (!find(key))
        return std::nullopt;
    return string(key);
}

double JsonReader::number(std::string_view key) const
{
    const auto* v = find(key);
    if (!v)
        fail(key, "missing");
    if (!v->is_number())
        fail(key, fmt::format("expected a number, found {}", v->type_name()));
    const double d = v->get<double>();
    if (!std::isfinite(d))
        fail(key, "not a finite number");
    return d;
}

double JsonReader::number_or(std::string_view key, double fallback) const
{
    return find(key) ? number(key) : fallback;
}

std::optional<double> JsonReader::optional_number(std::string_view key) const
{
    if (!find(key))
        return std::nullopt;
    return number(key);
}

long long JsonReader::integer(std::string_view key) const
{
    const auto* v = find(key);
    if (!v)
        fail(key, "missing");
    if (!v->is_number_integer())
        fail(key, fmt::format("expected an integer, found {}", v->is_number() ? v->dump() : v->type_name()));
    return v->get<long long>();
}

long long JsonReader::integer_or(std::string_view key, long long fallback) const
{
    return find(key) ? integer(key) : fallback;
}

bool JsonReader::boolean_or(std::string_view key, bool fallback) const
{
    const auto* v = find(key);
    if (!v)
        return fallback;
    if (!v->is_boolean())
        fail(key, fmt::format("expected true or false, found {}", v->type_name()));
    return v->get<bool>();
}

} // namespace kwb
