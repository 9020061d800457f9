// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: the progress-stream parser the window reads kwb run's stdout with. The input is
// fed in pieces whose sizes come from its first byte (reads arrive in arbitrary pieces), then
// finished; a malformed line must come back as a Malformed event, never a crash.
#include "models/stream_parser.h"

#include <algorithm>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    kwb::gui::StreamParser parser;
    const std::size_t piece = size > 0 ? 1 + data[0] % 97 : 1;
    for (std::size_t at = 0; at < size; at += piece)
        parser.feed(QByteArray(reinterpret_cast<const char*>(data) + at, static_cast<int>(std::min(piece, size - at))));
    parser.finish();
    return 0;
}
