// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The report's one window onto the verdicts a study stores. Experiment::verdict and
// final_verdict are JSON today (the `kwb verdict --json` shape and the study-rules shape); when the
// study holds them as typed structs, only this file and its .cpp change. Nothing here judges: the
// words, reasons and numbers are those the verdict engine wrote when the experiment was judged.

#include "stats/bootstrap.h"
#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kwb::report {

struct StoredGuard {
    std::string metric;
    std::string verdict;
    bool assessed = false;
    bool regressed = false;
    std::optional<double> delta_pct;
    std::optional<double> sigma_pct;
    std::optional<stats::Interval> ci95_delta_pct;
    std::vector<std::string> reasons;
};

struct StoredVerdict {
    bool present = false; // false: the experiment was not judged
    std::string word; // LICENSE, KILL, NOISE, INCONCLUSIVE
    std::vector<std::string> reasons;
    std::optional<int> rule; // sample verdict: the rule that decided (1-7)
    nlohmann::json profile; // the profile object it was judged under
    std::optional<double> runs_needed_per_arm;
    std::optional<double> runs_needed_threshold_pct;
    // Final verdict only:
    std::string sample_word;
    std::vector<std::string> flags; // prediction check: "sign mismatch", "magnitude off"
    std::optional<double> predicted_delta_pct;
    std::optional<double> measured_delta_pct;
    std::optional<bool> tradeoff_named;
    std::vector<StoredGuard> guards;
    nlohmann::json gpu_sharing; // the final verdict's "gpu_sharing" entry, or null
    nlohmann::json cycles; // its "cycles" entry, or null
};

StoredVerdict sample_verdict_of(const Experiment& e);
StoredVerdict final_verdict_of(const Experiment& e);

// Whether the stored sample verdict was judged with pairing (its "paired" entry is an object).
bool judged_paired(const Experiment& e);

} // namespace kwb::report
