// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/profile.h"

#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace kwb {

Profile make_profile(std::string_view name, Direction direction)
{
    if (name != "generic" && name != "strict" && name != "speedup")
        throw std::invalid_argument(fmt::format("unknown profile \"{}\" (expected generic, strict or speedup)", name));
    Profile p; // the defaults of the spec's table are the struct's initialisers
    p.name = std::string(name);
    p.direction = direction;
    return p;
}

std::string_view rule_family(const Profile& profile)
{
    return profile.name == "custom" ? std::string_view(profile.base) : std::string_view(profile.name);
}

const std::vector<std::string>& profile_override_keys()
{
    static const std::vector<std::string> keys {"min_n", "license_pct", "kill_pct", "max_sigma_pct",
        "unstable_sigma_pct", "noise_k", "license_speedup", "kill_speedup"};
    return keys;
}

namespace {

double number_of(const std::string& key, const nlohmann::json& v)
{
    if (!v.is_number())
        throw std::invalid_argument(fmt::format("{}: {} is not a number", key, v.dump()));
    const double x = v.get<double>();
    if (!std::isfinite(x))
        throw std::invalid_argument(fmt::format("{}: not a finite number", key));
    return x;
}

void set_number(Profile& p, const std::string& key, const nlohmann::json& v)
{
    const double x = number_of(key, v);
    const auto at_least = [&](double lo, bool strict) {
        if (strict ? !(x > lo) : !(x >= lo))
            throw std::invalid_argument(fmt::format("{}: {} must be {} {}", key, x, strict ? ">" : ">=", lo));
    };
    if (key == "min_n") {
        if (x != std::floor(x) || x < 1 || x > 1e9)
            throw std::invalid_argument(fmt::format("min_n: {} is not a whole number >= 1", x));
        p.min_n = static_cast<int>(x);
    } else if (key == "license_pct") {
        p.license_pct = x;
    } else if (key == "kill_pct") {
        p.kill_pct = x;
    } else if (key == "max_sigma_pct") {
        at_least(0, false);
        p.max_sigma_pct = x;
    } else if (key == "unstable_sigma_pct") {
        at_least(0, false);
        p.unstable_sigma_pct = x;
    } else if (key == "noise_k") {
        at_least(0, false);
        p.noise_k = x;
    } else if (key == "license_speedup") {
        at_least(0, true);
        p.license_speedup = x;
    } else if (key == "kill_speedup") {
        at_least(0, true);
        p.kill_speedup = x;
    } else {
        throw std::invalid_argument(fmt::format("unknown profile key \"{}\"", key));
    }
}

} // namespace

Profile apply_overrides(Profile profile, const nlohmann::json& overrides)
{
    if (overrides.is_null())
        return profile;
    if (!overrides.is_object())
        throw std::invalid_argument("profile overrides must be a JSON object");
    if (overrides.empty())
        return profile;
    for (const auto& [key, value] : overrides.items())
        set_number(profile, key, value);
    if (profile.name != "custom") {
        profile.base = profile.name;
        profile.name = "custom";
    }
    return profile;
}

nlohmann::json profile_to_json(const Profile& p)
{
    nlohmann::json j;
    j["name"] = p.name;
    if (p.name == "custom")
        j["base"] = p.base;
    j["direction"] = std::string(to_string(p.direction));
    j["min_n"] = p.min_n;
    j["license_pct"] = p.license_pct;
    j["kill_pct"] = p.kill_pct;
    j["max_sigma_pct"] = p.max_sigma_pct;
    j["unstable_sigma_pct"] = p.unstable_sigma_pct;
    j["noise_k"] = p.noise_k;
    if (rule_family(p) == "speedup") {
        j["license_speedup"] = p.license_speedup;
        j["kill_speedup"] = p.kill_speedup;
    }
    return j;
}

Profile profile_from_json(const nlohmann::json& j)
{
    if (!j.is_object())
        throw std::invalid_argument("a profile must be a JSON object");
    const std::string name = j.value("name", std::string("generic"));
    const std::string base = name == "custom" ? j.value("base", std::string("generic")) : name;
    const auto direction = parse_direction(j.value("direction", std::string("lower")));
    if (!direction)
        throw std::invalid_argument(fmt::format("unknown direction {}", j.at("direction").dump()));
    Profile p = make_profile(base, *direction);
    for (const auto& key : profile_override_keys())
        if (j.contains(key))
            set_number(p, key, j.at(key));
    if (name == "custom") {
        p.name = "custom";
        p.base = base;
    }
    return p;
}

} // namespace kwb
