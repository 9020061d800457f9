// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/direction.h"

namespace kwb {

std::string_view to_string(Direction d)
{
    return d == Direction::Higher ? "higher" : "lower";
}

std::optional<Direction> parse_direction(std::string_view text)
{
    if (text == "lower")
        return Direction::Lower;
    if (text == "higher")
        return Direction::Higher;
    return std::nullopt;
}

} // namespace kwb
