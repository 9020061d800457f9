// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger/ledger_history.h"

#include "verdict/verdict_json.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <fmt/format.h>

namespace kwb::ledger {
namespace {

using nlohmann::json;

double t_quantile(int n)
{
    return boost::math::quantile(boost::math::students_t(static_cast<double>(n - 1)), 0.975);
}

} // namespace

std::vector<std::string> history_devices(Database& db, const std::string& key)
{
    auto s = db.prepare("SELECT device_model FROM experiments WHERE benchmark_key = ? AND treatment_mean IS NOT NULL "
                        "GROUP BY device_model ORDER BY count(*) DESC, device_model");
    s.bind(1, key);
    std::vector<std::string> models;
    while (s.step())
        models.push_back(s.text(0));
    return models;
}

History load_history(
    Database& db, const std::string& key, const std::string& device_model, const ChangePointOptions& options)
{
    History h;
    h.benchmark_key = key;
    h.device_model = device_model;
    if (h.device_model.empty()) {
        const auto models = history_devices(db, key);
        if (models.empty())
            throw LedgerError(fmt::format("the ledger has no measured point of '{}'", key));
        h.device_model = models.front();
    }
    auto s = db.prepare("SELECT study_path, experiment_id, at, commit_treatment, treatment_mean, treatment_sd, "
                        "n_treatment, CASE WHEN final_word != '' THEN final_word ELSE word END, metric, direction, "
                        "verdict FROM experiments WHERE benchmark_key = ? AND device_model = ? AND treatment_mean IS "
                        "NOT NULL ORDER BY at, study_path, experiment_id");
    s.bind(1, key).bind(2, h.device_model);
    std::string last_verdict;
    while (s.step()) {
        HistoryPoint p;
        p.study_path = s.text(0);
        p.experiment_id = s.text(1);
        p.at = s.text(2);
        p.commit = s.text(3);
        p.value = *s.real(4);
        p.n = static_cast<int>(s.integer(6));
        const double sd = s.real(5).value_or(0.0);
        const double half = p.n >= 2 ? t_quantile(p.n) * sd / std::sqrt(static_cast<double>(p.n)) : 0.0;
        p.ci_lo = p.value - half;
        p.ci_hi = p.value + half;
        p.word = s.text(7);
        h.metric = s.text(8);
        h.direction = s.text(9);
        last_verdict = s.text(10);
        h.points.push_back(std::move(p));
    }
    if (h.points.empty())
        throw LedgerError(fmt::format("the ledger has no point of '{}' on {}", key, h.device_model));
    const json v = json::parse(last_verdict, nullptr, false);
    try {
        h.profile = sample_verdict_from_json(v).profile;
    } catch (const std::exception&) {
        h.profile = Profile {}; // a row written by hand: the generic profile's rules
        h.profile.direction = h.direction == "higher" ? Direction::Higher : Direction::Lower;
    }
    std::vector<double> values;
    for (const auto& p : h.points)
        values.push_back(p.value);
    h.change_points = find_change_points(values, h.profile, options);
    h.method = describe_method(h.profile, options);
    return h;
}

json to_json(const History& h)
{
    json points = json::array();
    for (const auto& p : h.points)
        points.push_back({{"study", p.study_path}, {"experiment", p.experiment_id}, {"at", p.at},
            {"commit", p.commit.empty() ? json(nullptr) : json(p.commit)}, {"value", p.value},
            {"ci95", {p.ci_lo, p.ci_hi}}, {"n", p.n}, {"verdict", p.word}});
    json changes = json::array();
    for (const auto& c : h.change_points)
        changes.push_back({{"index", c.index}, {"at", h.points[c.index].at}, {"delta_pct", c.delta_pct},
            {"sigma_pct", c.sigma_pct}, {"p_welch", c.p_welch}, {"word", c.word}, {"regression", c.regression}});
    return {{"benchmark_key", h.benchmark_key}, {"metric", h.metric}, {"direction", h.direction},
        {"device", h.device_model}, {"points", points}, {"change_points", changes}, {"method", h.method}};
}

} // namespace kwb::ledger
