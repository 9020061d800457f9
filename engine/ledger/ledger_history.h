// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ledger/change_points.h"
#include "ledger/ledger_db.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// One benchmark's metric over time on one device model (docs/ledger.md, "History"). Each point is
// one indexed experiment: its treatment arm's mean of the target metric (the state the attempt
// measured), with that mean's 95% t-interval (mean +- t(0.975, n-1) sd / sqrt n), labelled by the
// treatment's commit when the arms carry one, else by the attempt's date. Points are ordered by
// the attempt's time (commits have no other order the ledger knows).
namespace kwb::ledger {

struct HistoryPoint {
    std::string study_path;
    std::string experiment_id;
    std::string at;
    std::string commit; // empty when the arms carry none
    double value = 0;
    double ci_lo = 0, ci_hi = 0;
    int n = 0;
    std::string word; // the final word (else the sample word)
};

struct History {
    std::string benchmark_key;
    std::string metric;
    std::string direction; // lower, higher
    std::string device_model;
    Profile profile; // the latest point's, under which the change points are judged
    std::vector<HistoryPoint> points;
    std::vector<ChangePoint> change_points;
    std::string method; // describe_method()
};

// The device models that key was measured on, most points first.
std::vector<std::string> history_devices(Database& db, const std::string& key);

// The history of `key` on `device_model` (empty: the model with the most points). Throws
// LedgerError when the key or the device has no point.
History load_history(
    Database& db, const std::string& key, const std::string& device_model, const ChangePointOptions& options = {});

nlohmann::json to_json(const History& history);

} // namespace kwb::ledger
