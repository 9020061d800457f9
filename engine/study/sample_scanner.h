// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "util/json_scanner.h"

#include <vector>

namespace kwb {

// Reads the samples array at the scanner's cursor (a '[' after whitespace) into `out`, each
// element exactly as sample_from_json (study_json.cpp) reads it from nlohmann's DOM: a study of
// 100,000 samples is mostly samples, and nlohmann's lexer was four-fifths of the time of opening
// it (bench/results/2026-12-01-distributions-open-fast).
//
// False, at once, on anything it is not sure of: invalid JSON, a key it does not know (a newer
// file's, or a field added to sample_from_json and not yet here: the ordinary path keeps it), a
// duplicate key, a value of the wrong type, an integer out of the range of an int, a number
// nlohmann would refuse or round to 0, a fingerprint value that is not a string. The caller then
// parses the ordinary way, which gives exactly the result or the error it always gave.
bool scan_samples(JsonScanner& in, std::vector<Sample>& out);

} // namespace kwb
