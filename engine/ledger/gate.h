// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ledger/ledger_db.h"
#include "study/study.h"
#include "verdict/regression.h"

#include <string>
#include <vector>

// The CI gate (`kwb gate`, docs/ledger.md): did anything regress? A study's judged experiments, or
// the latest attempt of a ledger benchmark key, are asked the one regression rule
// (verdict/regression.h call_regression, the guard rule of spec/verdict.md) for their target
// metric; their guard metrics were judged by the same rule when the study was judged.
namespace kwb::ledger {

struct GateItem {
    std::string study; // path
    std::string experiment;
    std::string metric; // the target metric, or a guard's
    bool guard = false;
    std::string device;
    std::string word; // the final word (else the sample word)
    RegressionCall call;
};

struct GateResult {
    std::string subject; // the study path or the benchmark key
    std::vector<GateItem> items;
    std::vector<std::string> notes; // e.g. the history's change points
    bool regressed() const;
};

// Every judged experiment of a study; throws LedgerError when none is judged (nothing to gate).
GateResult gate_study(const Study& study, const std::string& path, double tolerance_pct);

// The latest indexed attempt of `key` on `device_model` (empty: every device model, the latest on
// each), with the history's change points as notes. Throws LedgerError for an unknown key.
GateResult gate_history(Database& db, const std::string& key, const std::string& device_model, double tolerance_pct);

// The summary for a pull-request comment.
std::string gate_markdown(const GateResult& result, double tolerance_pct);

} // namespace kwb::ledger
