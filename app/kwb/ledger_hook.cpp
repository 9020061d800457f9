// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger_hook.h"

#include "ledger/ledger_history.h"
#include "ledger/ledger_index.h"
#include "ledger/ledger_query.h"
#include "ledger/ledger_row.h"
#include "run/judge_experiment.h"
#include "study/study_file.h"
#include "verdict/runs_needed.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

namespace kwb::cli {

void index_in_ledger(const std::filesystem::path& study_file, const Study& study)
{
    try {
        ledger::Database db(ledger::ledger_path());
        ledger::index_study(db, study_file, study);
    } catch (const std::exception& e) {
        try {
            fmt::print(stderr, "kwb: warning: {}\n", ledger::index_warning(e.what()));
        } catch (...) { // a closed stderr must not turn a warning into a failed run
        }
    }
}

void index_in_ledger(const std::filesystem::path& study_file)
{
    try {
        index_in_ledger(study_file, load_study(study_file));
    } catch (const std::exception& e) {
        try {
            fmt::print(stderr, "kwb: warning: {}\n", ledger::index_warning(e.what()));
        } catch (...) {
        }
    }
}

void print_expected_noise(const Study& study)
{
    if (study.experiments.empty())
        return;
    const Experiment& e = study.experiments.front();
    const std::string key = ledger::benchmark_key(e);
    try {
        ledger::Database db(ledger::ledger_path());
        const auto models = ledger::history_devices(db, key);
        if (models.empty()) {
            fmt::print(stderr, "kwb: the ledger has no experiment of {} yet: no expected sigma to plan with\n", key);
            return;
        }
        const Profile p = experiment_profile(e, study.target.direction);
        const auto thresholds = delta_thresholds(p);
        const double gap = thresholds.size() == 2 ? std::fabs(thresholds[1] - thresholds[0]) / 2 : p.license_pct / 2;
        for (const auto& model : models) {
            const auto noise = ledger::expected_noise(db, key, model);
            if (!noise)
                continue;
            // The 95% CI of delta% is about +-1.96 sigma% sqrt(2/n): n for it to fit half the kill-license gap.
            const double s = noise->median_sigma_pct;
            const int n = std::max(p.min_n, static_cast<int>(std::ceil(2 * std::pow(1.96 * s / gap, 2))));
            fmt::print(stderr,
                "kwb: the ledger: {} on {} had sigma {:.2f}% (median of {} experiment{}, {:.2f}-{:.2f}%); at that "
                "sigma "
                "a delta% within {:.2f}% is noise (noise_k {}), and about {} runs per arm narrow the 95% CI to "
                "+-{:.2f}% "
                "(this study plans {}; shown only, the plan and profile are unchanged)\n",
                key, model, s, noise->experiments, noise->experiments == 1 ? "" : "s", noise->min_sigma_pct,
                noise->max_sigma_pct, p.noise_k * s, p.noise_k, n, gap, e.plan.runs_per_arm);
        }
    } catch (const std::exception& ex) {
        fmt::print(stderr, "kwb: warning: the ledger could not be read for an expected sigma: {}\n", ex.what());
    }
}

} // namespace kwb::cli
