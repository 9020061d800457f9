// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: the study loader (parse, migrate, validate). Any input must end in a Study or a
// StudyLoadError; anything else (a crash, another exception, a sanitizer report) is a finding.
#include "study/study_file.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    try {
        kwb::parse_study(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    } catch (const kwb::StudyLoadError&) {
    }
    return 0;
}
