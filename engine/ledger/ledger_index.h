// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ledger/ledger_db.h"
#include "study/study.h"

#include <filesystem>
#include <string>
#include <vector>

// Writing the ledger: a saved study's judged experiments and real A/As replace that study's rows,
// in one transaction (a killed writer leaves the previous rows, never half of the new ones).
// Everything here can be done again from the study files: the index is never the only copy.
namespace kwb::ledger {

// The path a study is indexed under: absolute and lexically normal.
std::string study_key(const std::filesystem::path& study_file);

// Replaces the rows of `study_file` with the study's judged experiments and A/A runs. Returns the
// number of experiments indexed. Throws LedgerError.
int index_study(Database& db, const std::filesystem::path& study_file, const Study& study);

struct ImportResult {
    int studies = 0; // study files indexed
    int experiments = 0; // judged experiments indexed
    std::vector<std::string> skipped; // "PATH: why" for JSON files that are not readable studies
    std::vector<std::string> dropped; // studies the index named that are gone (rebuild only)
};

// Indexes every study file (*.json, not inside a .parts folder) under `dir`, recursively.
ImportResult import_dir(Database& db, const std::filesystem::path& dir);

// Empties the index and indexes again every study file it named (and every study under `dirs`),
// from the files alone. Studies that are gone are reported in `dropped`.
ImportResult rebuild(Database& db, const std::vector<std::filesystem::path>& dirs = {});

// The opening line of the warning `kwb run` prints when the index write failed (the run and its
// study are fine): "the ledger was not updated (PATH: why); `kwb ledger import DIR` adds it later".
std::string index_warning(const std::string& why);

} // namespace kwb::ledger
