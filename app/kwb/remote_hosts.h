// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>

// Which kwb `kwb remote install` put on which ssh destination: `kwb run --host` and `kwb devices
// --host` use it from then on when no --remote-kwb is given (docs/remote.md). One JSON file,
// $XDG_STATE_HOME/kernel-workbench/remote-hosts.json (~/.local/state when unset), replaced
// atomically: {"HOST": {"kwb": PATH, "version": V, "dir": DIR, "installed_at": ISO}}.
namespace kwb::cli {

struct InstalledKwb {
    std::string kwb; // the remote program, a path under the remote home ("~/..." or absolute)
    std::string version;
    std::string dir;
    std::string installed_at;
};

std::filesystem::path remote_hosts_file();
std::optional<InstalledKwb> installed_kwb(const std::string& host);
void record_installed_kwb(const std::string& host, const InstalledKwb& installed);

// The remote kwb to run: --remote-kwb when given, else the installed one, else "kwb" on PATH.
std::string remote_kwb_for(const std::string& host, const std::string& remote_kwb_option);

} // namespace kwb::cli
