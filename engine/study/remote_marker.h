// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>

// A study handed to a remote host (`kwb run STUDY --host HOST`) is owned by the run there until it
// comes back. The flock of study_lock.h cannot say so: the local kwb that relays the run may be
// gone (a dropped connection, a closed laptop) while the remote run goes on. So the handover is
// recorded in a sidecar file `.NAME.remote` beside the study, written when the study is sent and
// removed when it is fetched back whole. While it exists a local `kwb run` refuses the study and
// the window opens it read-only, offering to reattach. The file also says where the run lives, so
// `kwb run STUDY --attach` (and the window) can find it again without being told.
namespace kwb {

struct RemoteRun {
    std::string host; // the ssh destination, as ssh understands it (~/.ssh/config applies)
    std::string remote_kwb; // the kwb program there
    std::string remote_folder; // the folder holding the study and the run's files there
    std::string study_name; // the study's file name there (its local name)
    std::string local_host; // the machine that sent it
    std::string started_at; // ISO 8601 UTC
    std::string describe() const; // "host gpu-01 (folder .kwb/runs/s.json-1a2b...)"
};

// Why a study cannot be run here: empty when no remote run owns it, else "is being run on host
// gpu-01 (folder ...) since 2026-12-01T03:00:00Z; it comes back when ...". `kwb run` and the
// window's Run both refuse with it; a marker that cannot be read is a reason too (its one-line
// error), never ignored.
std::string remote_run_refusal(const std::filesystem::path& study);

// `.NAME.remote` in the study's directory.
std::filesystem::path remote_marker_path(const std::filesystem::path& study);

// The remote run that owns the study, if any. Throws std::runtime_error naming the file when the
// marker exists but cannot be read or parsed (it is never silently ignored).
std::optional<RemoteRun> read_remote_marker(const std::filesystem::path& study);

// Writes the marker atomically; removes it (no error when absent).
void write_remote_marker(const std::filesystem::path& study, const RemoteRun& run);
void remove_remote_marker(const std::filesystem::path& study);

} // namespace kwb
