// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: the sample-file reader, without and with --column. Any input must end in values or
// a SampleFileError.
#include "stats/sample_file.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& column : {std::optional<std::string>(), std::optional<std::string>("time_ms")}) {
        try {
            kwb::stats::parse_samples(text, "fuzz.txt", column);
        } catch (const kwb::stats::SampleFileError&) {
        }
    }
    return 0;
}
