// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The run timeline of a study as Chrome trace-event JSON (the "JSON Object Format" that Perfetto
// and chrome://tracing open): one process per experiment, one thread track per arm with a complete
// ("X") slice per repetition (warm-ups in their own category and name), and one counter ("C") track
// per recorded metric lane. Timestamps are microseconds since the Unix epoch (UTC), so the trace
// lines up with other wall-clock captures such as nsys; docs/report.md says how lanes are placed.

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kwb::report {

nlohmann::json trace_of(const Study& study);

// "2026-11-30T13:36:57.854Z" -> microseconds since the epoch; nullopt when it does not parse.
std::optional<double> iso8601_to_us(const std::string& text);

} // namespace kwb::report
