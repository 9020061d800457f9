// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace kwb {

// A study document read the fast way: every experiment's `samples` array by scan_samples
// (sample_scanner.h), straight into Sample structs, and the rest of the text (targets, plans,
// verdicts, lanes...: small) by nlohmann, with those arrays cut out.
struct FastStudy {
    nlohmann::json document; // the document, each samples array that was read directly left as []
    // samples[i] holds experiment i's samples when its "samples" array was read directly.
    std::vector<std::optional<std::vector<Sample>>> samples;
};

// nullopt for anything but a well-formed document whose samples all have a shape scan_samples
// is sure of (invalid JSON, a field of the wrong type or unknown, an integer out of range, a
// duplicate key, an escape in a key of the root or of an experiment...): the caller then parses
// the ordinary way, which gives exactly the error (or the result) it always gave.
std::optional<FastStudy> read_study_fast(std::string_view text);

} // namespace kwb
