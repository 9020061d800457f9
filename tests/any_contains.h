// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whether any line holds `part`: how the verdict, rule and profiling tests look for a reason
// among a verdict's reasons, warnings or evidence lines.
#include <algorithm>
#include <string>
#include <vector>

namespace kwbtest {

inline bool any_contains(const std::vector<std::string>& lines, const std::string& part)
{
    return std::any_of(
        lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

} // namespace kwbtest
