// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger/ledger_index.h"

#include "ledger/ledger_row.h"
#include "run/aa_history.h"
#include "study/study_file.h"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

namespace kwb::ledger {
namespace {

constexpr const char* kInsertExperiment = R"sql(
INSERT OR REPLACE INTO experiments (study_path, experiment_id, study_name, kernel, workload, metric, direction,
    benchmark_key, fingerprint, params, device_kind, device_model, device_uuid, device_driver, commit_baseline,
    commit_treatment, at, word, final_word, rule, delta_pct, ci_lo, ci_hi, sigma_pct, n_baseline, n_treatment,
    baseline_mean, baseline_sd, treatment_mean, treatment_sd, verdict, guards_regressed, hypotheses, summary,
    indexed_at)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
)sql";

void insert(Statement& s, const ExperimentRow& r, const std::string& now)
{
    int i = 0;
    for (const std::string* text : {&r.study_path, &r.experiment_id, &r.study_name, &r.kernel, &r.workload, &r.metric,
             &r.direction, &r.benchmark_key, &r.fingerprint, &r.params, &r.device.kind, &r.device.model, &r.device.uuid,
             &r.device.driver, &r.commit_baseline, &r.commit_treatment, &r.at, &r.word, &r.final_word})
        s.bind(++i, *text);
    s.bind(++i, static_cast<long long>(r.rule));
    for (const auto* value : {&r.delta_pct, &r.ci_lo, &r.ci_hi, &r.sigma_pct})
        s.bind(++i, *value);
    s.bind(++i, static_cast<long long>(r.n_baseline));
    s.bind(++i, static_cast<long long>(r.n_treatment));
    for (const auto* value : {&r.baseline_mean, &r.baseline_sd, &r.treatment_mean, &r.treatment_sd})
        s.bind(++i, *value);
    s.bind(++i, r.verdict);
    s.bind(++i, static_cast<long long>(r.guards_regressed ? 1 : 0));
    s.bind(++i, nlohmann::json(r.hypotheses).dump());
    s.bind(++i, r.summary);
    s.bind(++i, now);
    s.step();
    s.reset();
}

bool inside_parts(const std::filesystem::path& p)
{
    for (const auto& part : p)
        if (part.extension() == ".parts")
            return true;
    return false;
}

void index_file(Database& db, const std::filesystem::path& file, ImportResult& result)
{
    Study study;
    try {
        study = load_study(file);
    } catch (const std::exception& e) {
        result.skipped.push_back(fmt::format("{}: {}", file.string(), e.what()));
        return;
    }
    result.experiments += index_study(db, file, study);
    ++result.studies;
}

std::vector<std::filesystem::path> study_files_under(const std::filesystem::path& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw LedgerError(fmt::format("{}: not a folder", dir.string()));
    std::vector<std::filesystem::path> files;
    for (auto it = std::filesystem::recursive_directory_iterator(
             dir, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        const auto& p = it->path();
        if (it->is_regular_file() && p.extension() == ".json" && !inside_parts(p))
            files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

std::string study_key(const std::filesystem::path& study_file)
{
    return std::filesystem::absolute(study_file).lexically_normal().string();
}

int index_study(Database& db, const std::filesystem::path& study_file, const Study& study)
{
    const std::string key = study_key(study_file);
    const auto rows = experiment_rows(key, study);
    const std::string now = utc_now_iso8601();
    db.transaction([&] {
        auto drop = db.prepare("DELETE FROM experiments WHERE study_path = ?");
        drop.bind(1, key).step();
        auto put = db.prepare(kInsertExperiment);
        for (const auto& r : rows)
            insert(put, r, now);
        auto drop_aa = db.prepare("DELETE FROM aa_runs WHERE study = ? AND source = 'study'");
        drop_aa.bind(1, key).step();
        auto put_aa = db.prepare("INSERT OR REPLACE INTO aa_runs (study, experiment, at, device_kind, device_model, "
                                 "device_uuid, n, word, delta_pct, source) VALUES (?,?,?,?,?,?,?,?,?,'study')");
        for (const auto& e : study.experiments)
            if (const auto aa = aa_history_entry(key, e)) {
                std::string at = aa->at;
                for (const auto& r : rows)
                    if (r.experiment_id == e.id)
                        at = r.at; // the attempt's time, not the indexing's: a rebuild gives the same row
                put_aa.bind(1, key).bind(2, e.id).bind(3, at).bind(4, e.device.kind).bind(5, e.device.model);
                put_aa.bind(6, e.device.uuid).bind(7, static_cast<long long>(aa->n)).bind(8, aa->word);
                put_aa.bind(9, aa->delta_pct).step();
                put_aa.reset();
            }
    });
    return static_cast<int>(rows.size());
}

ImportResult import_dir(Database& db, const std::filesystem::path& dir)
{
    ImportResult result;
    for (const auto& f : study_files_under(dir))
        index_file(db, f, result);
    return result;
}

ImportResult rebuild(Database& db, const std::vector<std::filesystem::path>& dirs)
{
    std::set<std::string> known;
    {
        auto s = db.prepare("SELECT DISTINCT study_path FROM experiments UNION SELECT DISTINCT study FROM aa_runs "
                            "WHERE source = 'study'");
        while (s.step())
            known.insert(s.text(0));
    }
    ImportResult result;
    std::set<std::string> files;
    for (const auto& path : known) {
        std::error_code ec;
        if (std::filesystem::exists(path, ec))
            files.insert(path);
        else
            result.dropped.push_back(path);
    }
    for (const auto& d : dirs)
        for (const auto& f : study_files_under(d))
            files.insert(study_key(f));
    db.transaction([&] {
        db.exec("DELETE FROM experiments");
        db.exec("DELETE FROM aa_runs WHERE source = 'study'");
    });
    for (const auto& f : files)
        index_file(db, f, result);
    return result;
}

std::string index_warning(const std::string& why)
{
    return fmt::format("the ledger was not updated ({}); `kwb ledger import DIR` or `kwb ledger rebuild` adds it "
                       "later (the study file is saved)",
        why);
}

} // namespace kwb::ledger
