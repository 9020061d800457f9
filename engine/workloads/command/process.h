// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <optional>
#include <string>

// Runs one shell command line in its own process group and waits for it, with a timeout that
// kills the whole group (a benchmark that forks a server or a worker leaves nothing behind).
namespace kwb::command {

struct ProcessSpec {
    std::string command; // run as /bin/sh -c COMMAND
    std::string cwd; // empty: the current directory
    std::map<std::string, std::string> env; // overrides on top of the inherited environment
    double timeout_s = 0; // 0: no timeout
};

struct ProcessResult {
    int exit_status = -1; // the exit code when it exited; -1 otherwise
    int signal = 0; // the signal that ended it, 0 when it exited
    bool timed_out = false; // killed (with its process group) at the timeout
    bool spawn_failed = false; // could not be started at all (see error)
    std::string error;
    std::string out; // everything written to stdout
    std::string err; // everything written to stderr
    double seconds = 0; // wall time from spawn to reap
    bool ok() const { return !spawn_failed && !timed_out && signal == 0 && exit_status == 0; }
    // "exit 3", "killed by signal 9", "timed out after 2 s", "could not start: ..."
    std::string describe() const;
};

// Never throws for a failing command: the failure is in the result.
ProcessResult run_process(const ProcessSpec& spec);

// The last `max_bytes` of a captured stream, with a note when it was cut.
std::string tail(const std::string& text, std::size_t max_bytes = 4096);

} // namespace kwb::command
