// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger/ledger_query.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kwb::ledger {
namespace {

using nlohmann::json;

constexpr const char* kColumns
    = "study_path, experiment_id, study_name, kernel, workload, metric, direction, benchmark_key, fingerprint, "
      "params, device_kind, device_model, device_uuid, device_driver, commit_baseline, commit_treatment, at, word, "
      "final_word, rule, delta_pct, ci_lo, ci_hi, sigma_pct, n_baseline, n_treatment, baseline_mean, baseline_sd, "
      "treatment_mean, treatment_sd, verdict, guards_regressed, hypotheses, summary";

ExperimentRow row_of(const Statement& s)
{
    ExperimentRow r;
    int i = 0;
    for (std::string* text : {&r.study_path, &r.experiment_id, &r.study_name, &r.kernel, &r.workload, &r.metric,
             &r.direction, &r.benchmark_key, &r.fingerprint, &r.params, &r.device.kind, &r.device.model, &r.device.uuid,
             &r.device.driver, &r.commit_baseline, &r.commit_treatment, &r.at, &r.word, &r.final_word})
        *text = s.text(i++);
    r.rule = static_cast<int>(s.integer(i++));
    for (auto* value : {&r.delta_pct, &r.ci_lo, &r.ci_hi, &r.sigma_pct})
        *value = s.real(i++);
    r.n_baseline = static_cast<int>(s.integer(i++));
    r.n_treatment = static_cast<int>(s.integer(i++));
    for (auto* value : {&r.baseline_mean, &r.baseline_sd, &r.treatment_mean, &r.treatment_sd})
        *value = s.real(i++);
    r.verdict = s.text(i++);
    r.guards_regressed = s.integer(i++) != 0;
    const json h = json::parse(s.text(i++), nullptr, false);
    if (h.is_array())
        for (const auto& item : h)
            if (item.is_string())
                r.hypotheses.push_back(item.get<std::string>());
    r.summary = s.text(i++);
    return r;
}

json number(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

// "2026-11-01" as an upper bound covers the whole day.
std::string until_bound(const std::string& until)
{
    return until.size() == 10 ? until + "T99" : until;
}

} // namespace

std::vector<ExperimentRow> list_attempts(Database& db, const Filter& f)
{
    std::string sql = fmt::format("SELECT {} FROM experiments WHERE 1", kColumns);
    std::vector<std::string> args;
    if (!f.kernel.empty()) {
        sql += " AND (instr(lower(kernel), lower(?1)) OR instr(lower(workload), lower(?1)) OR "
               "instr(lower(benchmark_key), lower(?1)) OR instr(lower(study_name), lower(?1)))";
        args.push_back(f.kernel);
    }
    const auto next = [&] { return fmt::format("?{}", args.size() + 1); };
    if (!f.benchmark_key.empty()) {
        sql += fmt::format(" AND benchmark_key = {}", next());
        args.push_back(resolve_key(db, f.benchmark_key));
    }
    if (!f.device.empty()) {
        sql += fmt::format(" AND instr(lower(device_model), lower({}))", next());
        args.push_back(f.device);
    }
    if (!f.verdict.empty()) {
        sql += fmt::format(" AND upper(CASE WHEN final_word != '' THEN final_word ELSE word END) = upper({})", next());
        args.push_back(f.verdict);
    }
    if (!f.since.empty()) {
        sql += fmt::format(" AND at >= {}", next());
        args.push_back(f.since);
    }
    if (!f.until.empty()) {
        sql += fmt::format(" AND at <= {}", next());
        args.push_back(until_bound(f.until));
    }
    sql += " ORDER BY at, study_path, experiment_id";
    auto s = db.prepare(sql);
    for (size_t i = 0; i < args.size(); ++i)
        s.bind(static_cast<int>(i + 1), args[i]);
    std::vector<ExperimentRow> rows;
    while (s.step())
        rows.push_back(row_of(s));
    return rows;
}

json to_json(const ExperimentRow& r)
{
    return {{"study", r.study_path}, {"experiment", r.experiment_id}, {"study_name", r.study_name},
        {"kernel", r.kernel}, {"workload", r.workload}, {"metric", r.metric}, {"direction", r.direction},
        {"benchmark_key", r.benchmark_key}, {"fingerprint", json::parse(r.fingerprint, nullptr, false)},
        {"params", json::parse(r.params, nullptr, false)},
        {"device",
            {{"kind", r.device.kind}, {"name", r.device.model}, {"uuid", r.device.uuid}, {"driver", r.device.driver}}},
        {"commits", {{"baseline", r.commit_baseline}, {"treatment", r.commit_treatment}}}, {"at", r.at},
        {"verdict", r.word}, {"final_verdict", r.final_word.empty() ? json(nullptr) : json(r.final_word)},
        {"rule", r.rule}, {"delta_pct", number(r.delta_pct)},
        {"ci95_delta_pct", r.ci_lo && r.ci_hi ? json::array({*r.ci_lo, *r.ci_hi}) : json(nullptr)},
        {"sigma_pct", number(r.sigma_pct)}, {"n", {{"baseline", r.n_baseline}, {"treatment", r.n_treatment}}},
        {"guards_regressed", r.guards_regressed}, {"hypotheses", r.hypotheses}, {"summary", r.summary}};
}

std::string resolve_key(Database& db, const std::string& text)
{
    auto s
        = db.prepare("SELECT DISTINCT benchmark_key FROM experiments WHERE substr(benchmark_key, 1, length(?1)) = ?1 "
                     "ORDER BY benchmark_key");
    s.bind(1, text);
    std::vector<std::string> keys;
    while (s.step())
        keys.push_back(s.text(0));
    if (std::find(keys.begin(), keys.end(), text) != keys.end())
        return text;
    if (keys.empty())
        throw LedgerError(fmt::format("no benchmark key in the ledger starts with '{}' (kwb ledger lists them)", text));
    if (keys.size() > 1)
        throw LedgerError(fmt::format("'{}' names {} benchmark keys: {}", text, keys.size(), fmt::join(keys, ", ")));
    return keys.front();
}

std::optional<NoiseEstimate> expected_noise(Database& db, const std::string& key, const std::string& device_model)
{
    auto s = db.prepare("SELECT sigma_pct FROM experiments WHERE benchmark_key = ? AND device_model = ? AND "
                        "sigma_pct IS NOT NULL AND rule != 1");
    s.bind(1, key).bind(2, device_model);
    std::vector<double> sigmas;
    while (s.step())
        sigmas.push_back(*s.real(0));
    if (sigmas.empty())
        return std::nullopt;
    std::sort(sigmas.begin(), sigmas.end());
    const size_t n = sigmas.size();
    NoiseEstimate e;
    e.benchmark_key = key;
    e.device_model = device_model;
    e.experiments = static_cast<int>(n);
    e.median_sigma_pct = n % 2 ? sigmas[n / 2] : (sigmas[n / 2 - 1] + sigmas[n / 2]) / 2;
    e.min_sigma_pct = sigmas.front();
    e.max_sigma_pct = sigmas.back();
    return e;
}

AaRunsSummary aa_runs(Database& db, const std::string& device_model)
{
    auto s = db.prepare("SELECT count(*), coalesce(sum(word != 'NOISE'), 0) FROM aa_runs WHERE device_model = ?");
    s.bind(1, device_model);
    s.step();
    return {static_cast<int>(s.integer(0)), static_cast<int>(s.integer(1))};
}

} // namespace kwb::ledger
