// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/grid_interaction_record.h"

#include "util/json_reader.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

using nlohmann::json;

json interval(const std::optional<std::array<double, 2>>& ci)
{
    return ci ? json {(*ci)[0], (*ci)[1]} : json(nullptr);
}

json optional_number(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

// [lo, hi] of two finite numbers, or null.
std::optional<std::array<double, 2>> interval_from(const JsonReader& r, std::string_view key)
{
    const json* v = r.has(key) ? &r.json().at(std::string(key)) : nullptr;
    if (!v || v->is_null())
        return std::nullopt;
    if (!v->is_array() || v->size() != 2 || !(*v)[0].is_number() || !(*v)[1].is_number())
        r.fail(key, "must be null or [lo, hi], two numbers");
    return std::array<double, 2> {(*v)[0].get<double>(), (*v)[1].get<double>()};
}

int whole(const JsonReader& r, const json& array, size_t i, std::string_view key)
{
    if (!array[i].is_number_integer())
        r.fail(key, fmt::format("element {} must be a whole number", i));
    return array[i].get<int>();
}

// [a, b] of two whole numbers.
std::array<int, 2> pair_of_ints(const JsonReader& r, std::string_view key)
{
    const json& v = r.array(key);
    if (v.size() != 2)
        r.fail(key, "must hold two whole numbers");
    return {whole(r, v, 0, key), whole(r, v, 1, key)};
}

InteractionContrastRecord contrast_from(const JsonReader& r)
{
    InteractionContrastRecord c;
    const auto cell = pair_of_ints(r, "cell");
    c.row = cell[0];
    c.col = cell[1];
    c.experiment = r.string_or("experiment", "");
    c.measured_pct = r.number("measured_pct");
    c.additive_pct = r.number("additive_pct");
    c.interaction_pct = r.number("interaction_pct");
    c.ci95 = interval_from(r, "ci95");
    c.ci_excludes_zero = r.boolean_or("ci_excludes_zero", false);
    return c;
}

} // namespace

json to_json(const GridInteraction& g)
{
    json contrasts = json::array();
    for (const auto& c : g.contrasts)
        contrasts.push_back({{"cell", {c.row, c.col}}, {"experiment", c.experiment}, {"measured_pct", c.measured_pct},
            {"additive_pct", c.additive_pct}, {"interaction_pct", c.interaction_pct}, {"ci95", interval(c.ci95)},
            {"ci_excludes_zero", c.ci_excludes_zero}});
    return {{"metric", g.metric}, {"direction", to_string(g.direction)}, {"delta_pct", g.delta_pct},
        {"contrasts", contrasts}, {"difference_of_differences_pct", optional_number(g.difference_of_differences_pct)},
        {"ci95", interval(g.ci95)}, {"f_two_way", optional_number(g.f_two_way)},
        {"p_two_way", optional_number(g.p_two_way)}, {"df", {g.df_interaction, g.df_residual}},
        {"pooled_variance", optional_number(g.pooled_variance)}, {"flagged", g.flagged}, {"alpha", g.alpha},
        {"resamples", g.resamples}, {"summary", g.summary}, {"method", g.method}};
}

GridInteraction grid_interaction_from(const JsonReader& r)
{
    GridInteraction g;
    g.metric = r.string_or("metric", "");
    const std::string direction = r.string_or("direction", "lower");
    const auto parsed = parse_direction(direction);
    if (!parsed)
        r.fail("direction", fmt::format("must be \"lower\" or \"higher\", not \"{}\"", direction));
    g.direction = *parsed;
    for (size_t i = 0; const json& row : r.array("delta_pct")) {
        if (!row.is_array())
            r.fail("delta_pct", fmt::format("row {} must be an array of numbers", i));
        std::vector<double> values;
        for (const json& v : row) {
            if (!v.is_number())
                r.fail("delta_pct", fmt::format("row {} must be an array of numbers", i));
            values.push_back(v.get<double>());
        }
        g.delta_pct.push_back(std::move(values));
        ++i;
    }
    const json& contrasts = r.array("contrasts");
    for (size_t i = 0; i < contrasts.size(); ++i)
        g.contrasts.push_back(contrast_from(r.element(contrasts, i, "contrasts")));
    g.difference_of_differences_pct = r.optional_number("difference_of_differences_pct");
    g.ci95 = interval_from(r, "ci95");
    g.f_two_way = r.optional_number("f_two_way");
    g.p_two_way = r.optional_number("p_two_way");
    if (r.has("df")) {
        const auto df = pair_of_ints(r, "df");
        g.df_interaction = df[0];
        g.df_residual = df[1];
    }
    g.pooled_variance = r.optional_number("pooled_variance");
    g.flagged = r.boolean_or("flagged", false);
    g.alpha = r.number_or("alpha", 0.05);
    g.resamples = static_cast<int>(r.integer_or("resamples", 0));
    g.summary = r.string_or("summary", "");
    g.method = r.string_or("method", "");
    return g;
}

} // namespace kwb
