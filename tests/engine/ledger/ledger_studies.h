// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Study files with judged experiments for the ledger's tests: each experiment's arms get the
// given values (the baseline's, the treatment's) as judged samples, and its verdicts are the
// verdict engine's own (judge_samples, apply_study_rules), as `kwb run` would record them.
#include "study/study.h"
#include "study/study_file.h"
#include "verdict/verdict.h"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace ledger_test {

inline std::vector<double> around(double mean, double spread_pct, int n, int seed)
{
    std::vector<double> v;
    for (int i = 0; i < n; ++i) // deterministic, spread out (not two clusters: rule 3 would call it bimodal)
        v.push_back(mean * (1 + spread_pct / 100.0 * std::sin(2.3 * i + seed)));
    return v;
}

inline kwb::Experiment judged_experiment(const std::string& id, const std::vector<double>& baseline,
    const std::vector<double>& treatment, const std::string& model = "NVIDIA H200", const std::string& at = "")
{
    using namespace kwb;
    Experiment e;
    e.id = id;
    e.workload = "vector_add";
    e.metric = "time_ms";
    e.arms = {Arm {"baseline", {{"n", 1024}}}, Arm {"treatment", {{"n", 1024}, {"block", 256}}}};
    e.status = ExperimentStatus::Done;
    e.device = {"cuda", model, "GPU-1", 0, "580"};
    int pos = 0;
    for (size_t i = 0; i < baseline.size(); ++i)
        for (const auto* arm : {&e.arms[0], &e.arms[1]}) {
            Sample s;
            s.arm = arm->name;
            s.rep = static_cast<int>(i);
            s.position = pos++;
            s.started_at = at.empty() ? "2026-11-01T00:00:00Z" : at;
            s.metrics["time_ms"] = arm == &e.arms[0] ? baseline[i] : treatment[i];
            e.samples.push_back(s);
        }
    const Profile p = make_profile("generic", Direction::Lower);
    e.verdict = judge_samples(baseline, treatment, p, false);
    e.final_verdict = apply_study_rules(*e.verdict, {}, p);
    return e;
}

inline void add_ledger_entry(kwb::Study& s, const kwb::Experiment& e, const std::string& at)
{
    s.ledger.push_back(
        {e.id, at, std::string(kwb::to_string(e.final_verdict->word)), "test attempt", {"h1: coalescing"}});
}

// A study of `experiments` judged A/Bs (ab-1...), saved at `path`.
inline void write_study(const std::filesystem::path& path, int experiments, double treatment_mean = 9.0,
    const std::string& model = "NVIDIA H200")
{
    kwb::Study s;
    s.name = path.stem().string();
    s.target.metric = "time_ms";
    s.target.kernel = "vector add fp32";
    for (int i = 0; i < experiments; ++i) {
        const std::string at = fmt::format("2026-11-{:02}T10:00:00Z", 1 + i % 28);
        auto e = judged_experiment(
            fmt::format("ab-{}", i + 1), around(10.0, 1, 6, i), around(treatment_mean, 1, 6, i + 1), model, at);
        add_ledger_entry(s, e, at);
        s.experiments.push_back(std::move(e));
    }
    kwb::save_study(s, path);
}

} // namespace ledger_test
