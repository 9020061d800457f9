// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: the study reader's fast path (sample_scanner.cpp, study_fast_read.cpp) against the
// ordinary path (nlohmann's DOM and sample_from_json). The first byte chooses the shape: odd, the
// rest of the input goes inside one experiment's samples array, where the fast tokenizer reads;
// even, the rest is the whole study text. Either the fast path steps aside or it reads exactly
// what the ordinary path reads (fast_read_disagreement); a disagreement aborts, as a finding.
// And the loader ends in a Study or a StudyLoadError.
#include "fast_read_agreement.h"
#include "study/study_file.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::string text;
    if (data[0] & 1) {
        text = R"({"schema_version": 3, "name": "f", "experiments": [{"id": "a", "workload": "g", "metric": "t",)"
               R"( "arms": [], "samples": [)";
        text += rest;
        text += "]}]}";
    } else
        text = rest;
    if (const auto disagreement = kwb::testing::fast_read_disagreement(text); !disagreement.empty()) {
        std::fprintf(stderr, "the fast and the ordinary path disagree: %s\n", disagreement.c_str());
        std::abort();
    }
    try {
        kwb::parse_study(text, "fuzz.json");
    } catch (const kwb::StudyLoadError&) {
    }
    return 0;
}
