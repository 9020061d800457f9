// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Checks a JSON value against the subset of JSON Schema docs/report-schema.json uses (type,
// required, properties, items, enum). Returns the problems found, one line each ("$.a.b: ...").
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kwbtest {

inline std::string json_type(const nlohmann::json& v)
{
    if (v.is_null())
        return "null";
    if (v.is_boolean())
        return "boolean";
    if (v.is_number_integer())
        return "integer";
    if (v.is_number())
        return "number";
    if (v.is_string())
        return "string";
    return v.is_array() ? "array" : "object";
}

inline void check_schema(
    const nlohmann::json& s, const nlohmann::json& v, const std::string& path, std::vector<std::string>& problems)
{
    if (s.contains("type")) {
        const auto types = s.at("type").is_array() ? s.at("type") : nlohmann::json::array({s.at("type")});
        const std::string t = json_type(v);
        bool ok = false;
        for (const auto& x : types)
            ok = ok || x == t || (t == "integer" && x == "number");
        if (!ok)
            problems.push_back(path + ": type " + t + ", expected " + types.dump());
    }
    if (s.contains("enum")) {
        bool found = false;
        for (const auto& x : s.at("enum"))
            found = found || x == v;
        if (!found)
            problems.push_back(path + ": " + v.dump() + " not in " + s.at("enum").dump());
    }
    if (v.is_object()) {
        if (s.contains("required"))
            for (const auto& r : s.at("required"))
                if (!v.contains(r.get<std::string>()))
                    problems.push_back(path + ": missing " + r.get<std::string>());
        if (s.contains("properties"))
            for (const auto& [k, sub] : s.at("properties").items())
                if (v.contains(k))
                    check_schema(sub, v.at(k), path + "." + k, problems);
    }
    if (v.is_array() && s.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i)
            check_schema(s.at("items"), v[i], path + "[" + std::to_string(i) + "]", problems);
}

} // namespace kwbtest
