// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>

// The progress stream's format (docs/progress-stream.md): its one version and its line layout, for
// every writer (kwb run, the --devices parent relaying its workers, a remote run's relay) and the
// window's reader. The events themselves are built by run/progress_events.h.
namespace kwb::progress {

inline constexpr int kStreamVersion = 1;

// One line of the stream, "\n" included: "type" and "v" lead (a person reading the stream sees them
// first), then every other key; invalid UTF-8 in a message (a workload's error text) is replaced
// rather than ending the stream. A "v" in `event` is replaced by kStreamVersion.
std::string line(const nlohmann::json& event);

// The `end` event: the last line of every stream.
nlohmann::json end_event(const std::string& status, int exit_code);

} // namespace kwb::progress
