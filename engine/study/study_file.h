// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <filesystem>
#include <stdexcept>

namespace kwb {

// A study file that cannot be used. what() is one line: "<file>: <problem>", naming the field
// when one is at fault. The file itself is never touched by a failed load.
class StudyLoadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses, migrates older schema versions to kStudySchemaVersion, and validates.
Study load_study(const std::filesystem::path& path);
Study parse_study(std::string_view text, const std::string& origin);

// Brings an older document up to the current schema in place; throws FormatError for a document
// from a newer program or one that is not a study at all.
void migrate_study_json(nlohmann::json& document);

// Writes atomically (temporary file + rename): a reader never sees a half-written study.
// Stamps modified_at (and created_at when empty).
void save_study(Study& study, const std::filesystem::path& path);

// The current time as ISO 8601 UTC with milliseconds, e.g. 2026-11-30T12:00:00.123Z.
std::string utc_now_iso8601();

} // namespace kwb
