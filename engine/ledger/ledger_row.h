// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <optional>
#include <string>
#include <vector>

// One judged experiment as the ledger indexes it (docs/ledger.md, table `experiments`): what a
// look across studies, devices and commits needs, copied out of the study file that holds it.
namespace kwb::ledger {

struct ExperimentRow {
    std::string study_path; // absolute
    std::string experiment_id;
    std::string study_name;
    std::string kernel; // the study's target kernel (K), in words
    std::string workload;
    std::string metric;
    std::string direction = "lower";
    std::string benchmark_key; // "<workload>/<metric>/<fingerprint hash>", see benchmark_key()
    std::string fingerprint; // JSON: what makes two experiments the same benchmark
    std::string params; // JSON: arm name -> parameters (and command)
    DeviceIdentity device;
    std::string commit_baseline, commit_treatment; // the arms' "commit" parameter, when they have one
    std::string at; // ISO 8601 UTC: the attempt's ledger entry, else its first judged sample
    std::string word; // the sample verdict's word
    std::string final_word; // the final verdict's word (empty without one)
    int rule = 0;
    std::optional<double> delta_pct, ci_lo, ci_hi, sigma_pct;
    int n_baseline = 0, n_treatment = 0;
    std::optional<double> baseline_mean, baseline_sd, treatment_mean, treatment_sd;
    std::string verdict; // JSON: the sample verdict (spec/verdict.md), its profile inside
    bool guards_regressed = false;
    std::vector<std::string> hypotheses; // the attempt ledger's hypotheses still standing
    std::string summary;
};

// The fingerprint of an experiment's benchmark: workload, metric, and the baseline arm's
// configuration (parameters without "commit", the command line for command arms). Two
// experiments with the same fingerprint measured the same thing against the same reference.
std::string benchmark_fingerprint(const Experiment& e);
// "<workload>/<metric>/<8 hex digits of the fingerprint's FNV-1a hash>".
std::string benchmark_key(const Experiment& e);

// The rows of every judged experiment (one with a sample verdict) of a study; `study_path` is
// recorded as given (callers pass an absolute path).
std::vector<ExperimentRow> experiment_rows(const std::string& study_path, const Study& study);

} // namespace kwb::ledger
