// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kwb {

// Which way a metric improves. Times, latencies and bytes improve downwards (the default);
// throughputs improve upwards.
enum class Direction { Lower, Higher };

std::string_view to_string(Direction d);
std::optional<Direction> parse_direction(std::string_view text);

} // namespace kwb
