// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger/ledger_row.h"

#include "verdict/verdict_json.h"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kwb::ledger {
namespace {

using nlohmann::json;

std::string commit_of(const Arm& arm)
{
    if (arm.params.is_object() && arm.params.contains("commit") && arm.params["commit"].is_string())
        return arm.params["commit"].get<std::string>();
    return {};
}

const Arm* arm_named(const Experiment& e, bool treatment)
{
    std::vector<const Arm*> ab;
    for (const auto& a : e.arms)
        if (a.role.empty())
            ab.push_back(&a);
    const size_t i = treatment ? 1 : 0;
    return i < ab.size() ? ab[i] : nullptr;
}

json arm_json(const Arm& a)
{
    json j = a.params;
    if (a.command)
        j["command"] = a.command->cmd;
    if (a.worker)
        j["worker"] = "worker";
    return j;
}

// The attempt's time: its ledger entry's, else its first judged sample's.
std::string attempt_time(const Study& study, const Experiment& e)
{
    for (const auto& l : study.ledger)
        if (l.experiment_id == e.id && !l.at.empty())
            return l.at;
    for (const auto& s : e.samples)
        if (!s.warmup && !s.started_at.empty())
            return s.started_at;
    return study.modified_at;
}

} // namespace

std::string benchmark_fingerprint(const Experiment& e)
{
    json baseline = json::object();
    if (const Arm* b = arm_named(e, false)) {
        baseline = arm_json(*b);
        if (baseline.is_object())
            baseline.erase("commit");
    }
    // nlohmann's objects are ordered by key: the dump is canonical.
    return json {{"workload", e.workload}, {"metric", e.metric}, {"baseline", baseline}}.dump();
}

std::string benchmark_key(const Experiment& e)
{
    std::uint64_t h = 14695981039346656037ull; // FNV-1a 64
    for (const unsigned char c : benchmark_fingerprint(e)) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return fmt::format("{}/{}/{:08x}", e.workload, e.metric, static_cast<std::uint32_t>(h ^ (h >> 32)));
}

std::vector<ExperimentRow> experiment_rows(const std::string& study_path, const Study& study)
{
    std::vector<ExperimentRow> rows;
    for (const auto& e : study.experiments) {
        if (!e.verdict)
            continue;
        const SampleVerdict& v = *e.verdict;
        ExperimentRow r;
        r.study_path = study_path;
        r.experiment_id = e.id;
        r.study_name = study.name;
        r.kernel = study.target.kernel;
        r.workload = e.workload;
        r.metric = e.metric;
        r.direction = std::string(to_string(v.profile.direction));
        r.benchmark_key = benchmark_key(e);
        r.fingerprint = benchmark_fingerprint(e);
        json params = json::object();
        for (const auto& a : e.arms)
            params[a.name] = arm_json(a);
        r.params = params.dump();
        r.device = e.device;
        if (const Arm* b = arm_named(e, false))
            r.commit_baseline = commit_of(*b);
        if (const Arm* t = arm_named(e, true))
            r.commit_treatment = commit_of(*t);
        r.at = attempt_time(study, e);
        r.word = std::string(to_string(v.word));
        if (e.final_verdict) {
            r.final_word = std::string(to_string(e.final_verdict->word));
            r.guards_regressed = std::any_of(e.final_verdict->guards.begin(), e.final_verdict->guards.end(),
                [](const GuardVerdict& g) { return g.regressed; });
        }
        r.rule = v.rule;
        r.delta_pct = v.delta_pct;
        if (v.ci95_delta_pct) {
            r.ci_lo = (*v.ci95_delta_pct)[0];
            r.ci_hi = (*v.ci95_delta_pct)[1];
        }
        r.sigma_pct = v.sigma_pct;
        r.n_baseline = static_cast<int>(v.baseline.n);
        r.n_treatment = static_cast<int>(v.treatment.n);
        r.baseline_mean = v.baseline.mean;
        r.baseline_sd = v.baseline.stddev;
        r.treatment_mean = v.treatment.mean;
        r.treatment_sd = v.treatment.stddev;
        r.verdict = to_json(v).dump();
        for (const auto& l : study.ledger)
            if (l.experiment_id == e.id) {
                r.hypotheses = l.hypotheses;
                r.summary = l.summary;
            }
        rows.push_back(std::move(r));
    }
    return rows;
}

} // namespace kwb::ledger
