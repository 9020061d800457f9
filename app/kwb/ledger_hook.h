// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// After kwb saves a study (run, a spread-out run's fold, collect, a remote run fetched back), its
// judged experiments go into the ledger (engine/ledger, docs/ledger.md). A failed index write is
// a warning on stderr, never a failed run: the study file holds everything.
#include "study/study.h"

#include <filesystem>

namespace kwb::cli {

void index_in_ledger(const std::filesystem::path& study_file, const Study& study);
// The same, the study read back from its file (a warning when it cannot be read).
void index_in_ledger(const std::filesystem::path& study_file);

// `kwb new --expected-noise`: for the new study's benchmark (ledger/ledger_row.h benchmark_key),
// the sigma% its indexed experiments had on each device model and the runs per arm that sigma
// suggests, on stderr. Shown only: the written plan and profile are never changed.
void print_expected_noise(const Study& study);

} // namespace kwb::cli
