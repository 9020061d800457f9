// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string>
#include <vector>

// `kwb remote install HOST`: a self-contained headless kwb onto a GPU server over ssh (issue 32;
// docs/remote.md). The bundle is made from this kwb as it runs: the program, the GPU plugin it
// would load, the shared libraries both link that are not the C and C++ runtime (the server may
// lack fmt, muParser, librsvg...; as scripts/gpu/pack.sh does for the H200 machine), and the
// reports' font faces; a wrapper bin/kwb puts its libraries first. It is unpacked beside the
// previous install, checked to run and to be this version, and only then replaces it; the
// destination's absolute path is recorded (remote_hosts.h), and `kwb run --host` uses it.
namespace kwb::cli {

struct RemoteInstallOptions {
    std::string host;
    std::string dir; // empty: $KWB_REMOTE_INSTALL_DIR, else .local/share/kernel-workbench/kwb-VERSION (remote home)
    bool json = false;
};

int remote_install(const RemoteInstallOptions& options);

// `kwb remote bundle DIR`: the bundle into a new local folder.
int write_bundle(const std::string& dir);

// Makes the bundle's folder in `dest` (bin/, lib/kernel-workbench/, deps/, share/); returns what
// it holds, a few words per part, for the summary.
std::vector<std::string> make_bundle(const std::filesystem::path& dest);

// The wrapper sets KWB_BUNDLE_LIBS to its deps/ folder and puts it first on LD_LIBRARY_PATH so
// this kwb loads its libraries; kwb then takes it out again, so the programs it starts (command
// arms, workers, builds) see the user's environment. Called first thing in main().
void forget_bundle_library_path();

} // namespace kwb::cli
