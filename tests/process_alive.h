// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whether a process is still alive (exists and is not a zombie), from /proc/PID/stat: what the
// tests that promise "no process of the command or worker outlives the run" check each PID with.
#include <fstream>
#include <string>

namespace kwbtest {

inline bool process_alive(int pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return false;
    const auto close = line.rfind(')'); // the state follows the command name's closing parenthesis
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

} // namespace kwbtest
