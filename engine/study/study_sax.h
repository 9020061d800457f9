// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace kwb {

// A study document read in one SAX pass: every experiment's `samples` array goes straight into
// Sample structs, the rest of the document into a DOM for study_from_json. A study of 100,000
// samples is mostly samples, and building then destroying a std::map per sample object was most
// of the time of opening it (bench/results/2026-12-01-distributions-open/PROFILE.md).
struct SaxStudy {
    nlohmann::json document; // without the experiments' "samples" keys that were read directly
    // samples[i] holds experiment i's samples when its "samples" was an array, read directly.
    std::vector<std::optional<std::vector<Sample>>> samples;
};

// nullopt for anything but a well-formed document whose samples all have the expected shape
// (invalid JSON, a field of the wrong type, an integer out of range, a duplicate key, a
// fingerprint value that is not a string...): the caller then parses the ordinary way, which
// gives exactly the error (or the result) it always gave. Unknown sample fields are skipped,
// as sample_from_json skips them.
std::optional<SaxStudy> read_study_sax(std::string_view text);

} // namespace kwb
