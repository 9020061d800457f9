// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ledger/ledger_db.h"
#include "ledger/ledger_row.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Reading the ledger: attempts filtered by kernel or workload, device, verdict and date, and the
// noise a benchmark showed on a device model (the sigma% of its indexed experiments).
namespace kwb::ledger {

struct Filter {
    std::string kernel; // substring of the study's kernel, workload, benchmark key or study name
    std::string benchmark_key; // exact key, or a prefix naming one key
    std::string device; // substring of the device model
    std::string verdict; // the final word (else the sample word), e.g. KILL
    std::string since, until; // ISO 8601 dates, inclusive ("2026-11-01" or a full time)
};

// Every matching attempt, oldest first.
std::vector<ExperimentRow> list_attempts(Database& db, const Filter& filter);

// One row as `kwb ledger --json` prints it.
nlohmann::json to_json(const ExperimentRow& row);

// The one benchmark key `text` names: itself, or the only key it is a prefix of. Throws
// LedgerError listing the candidates when it is ambiguous, or saying none matched.
std::string resolve_key(Database& db, const std::string& text);

// The noise a benchmark showed on a device model: sigma% over its indexed experiments.
struct NoiseEstimate {
    std::string benchmark_key;
    std::string device_model;
    int experiments = 0;
    double median_sigma_pct = 0;
    double min_sigma_pct = 0, max_sigma_pct = 0;
};
std::optional<NoiseEstimate> expected_noise(Database& db, const std::string& key, const std::string& device_model);

// The A/A runs the ledger holds for a device model (imported history and indexed studies).
struct AaRunsSummary {
    int runs = 0;
    int false_alarms = 0; // not NOISE
};
AaRunsSummary aa_runs(Database& db, const std::string& device_model);

} // namespace kwb::ledger
