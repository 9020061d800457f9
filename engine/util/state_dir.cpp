// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/state_dir.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace kwb {

std::filesystem::path kwb_state_dir(std::string_view what)
{
    std::filesystem::path base;
    const char* state = std::getenv("XDG_STATE_HOME");
    if (state && *state && std::filesystem::path(state).is_absolute())
        base = state;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".local" / "state";
    else
        throw std::runtime_error("no XDG_STATE_HOME and no HOME: nowhere to keep " + std::string(what));
    return base / "kernel-workbench";
}

} // namespace kwb
