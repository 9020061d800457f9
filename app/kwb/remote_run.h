// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

// `kwb run STUDY --host HOST`: the study runs on another machine over ssh (docs/remote.md).
namespace kwb::cli {

struct RemoteRunOptions {
    std::string study;
    std::string host; // empty with --attach: the host the study's record names
    std::string remote_kwb; // empty: the record's, else "kwb" (on the remote PATH)
    std::string remote_dir; // empty: ".kwb/runs" under the remote home
    bool attach = false;
    bool json_progress = false;
    std::vector<std::string> run_arguments; // passed to the remote `kwb run` (--backend cuda, ...)
};

// Sends the study, starts `kwb run --json-progress` there detached, relays its stream (stdout
// with json_progress, else one line per verdict), reattaches when the connection drops, and
// fetches the study back atomically when the run ends. Returns the remote run's exit status.
int run_remote(const RemoteRunOptions& options);

// `kwb devices --host HOST [--json]`: the remote sheet, printed as the remote kwb prints it.
int devices_remote(const std::string& host, const std::string& remote_kwb, bool json);

// The remote folder of a study sent from this machine: REMOTE_DIR/NAME-HASH, the hash of this
// host's name and the study's absolute path, so a study and its copy there are paired for good.
std::string remote_folder_for(const std::string& study, const std::string& remote_dir);

} // namespace kwb::cli
