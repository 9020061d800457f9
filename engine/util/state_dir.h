// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string_view>

namespace kwb {

// $XDG_STATE_HOME/kernel-workbench (~/.local/state/kernel-workbench when it is unset or relative,
// which the XDG specification says to ignore): where kwb keeps what a machine learned (the A/A
// history, the kwb each remote host runs). Throws std::runtime_error naming `what` when neither
// XDG_STATE_HOME nor HOME is set.
std::filesystem::path kwb_state_dir(std::string_view what);

} // namespace kwb
