// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "util/json_reader.h"

#include <nlohmann/json.hpp>

namespace kwb {

// The current schema, both ways. from_json throws FormatError naming the field at fault; it
// expects a document already migrated to kStudySchemaVersion (see study_file.h).
nlohmann::json study_to_json(const Study& study);
// Every experiment's "samples" an empty array: study_text writes the samples itself.
nlohmann::json study_to_json(const Study& study, bool with_samples);
Study study_from_json(const nlohmann::json& document);

nlohmann::json sample_to_json(const Sample& s);
Sample sample_from_json(const JsonReader& r);

// An arm's `command` object (docs/study-format.md), both ways: what `kwb test-arm --command-json`
// reads and the window's Test once writes.
nlohmann::json command_spec_json(const CommandSpec& spec);
CommandSpec command_spec_from(const JsonReader& r);

} // namespace kwb
