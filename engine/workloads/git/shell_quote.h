// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace kwb::git {

// `text` as one word of /bin/sh: 'text', each ' written '\''.
inline std::string shell_quote(const std::string& text)
{
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace kwb::git
