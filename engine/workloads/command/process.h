// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/steady_clock.h"

#include <atomic>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kwb {
class ProcessContainment;
}

// Runs one shell command line as the leader of its own process group and waits for it. Whatever
// it starts is ended with it (util/process_containment.h: the group, its descendants, processes
// that left the group with setsid, orphans), when it exits, at the timeout, past the output cap and
// when the run is asked to stop; nothing it started can hold the repetition by keeping a pipe open.
namespace kwb::command {

// The default cap on captured output: each of stdout and stderr (and a result file {out}).
inline constexpr double kDefaultMaxOutputMib = 64;

struct ProcessSpec {
    std::string command; // run as /bin/sh -c COMMAND
    std::string cwd; // empty: the current directory
    std::map<std::string, std::string> env; // overrides on top of the inherited environment
    double timeout_s = 0; // 0: no timeout
    // Bytes kept of each of stdout and stderr; past that the command is ended (output_capped). 0: no cap.
    std::size_t max_output_bytes = 0;
    // The run's stop request (SIGINT / SIGTERM in kwb run): watched while the command runs; set,
    // the command is ended at once (stopped). Null: none.
    const std::atomic<bool>* stop = nullptr;
};

struct ProcessResult {
    int exit_status = -1; // the exit code when it exited; -1 otherwise
    int signal = 0; // the signal that ended it, 0 when it exited
    bool timed_out = false; // killed (with everything it started) at the timeout
    bool stopped = false; // killed because the run was asked to stop
    std::string output_capped; // "stdout" or "stderr" when that stream passed max_output_bytes
    std::size_t max_output_bytes = 0; // the cap it ran under (for describe())
    bool spawn_failed = false; // could not be started at all (see error)
    std::string error;
    std::string out; // what it wrote to stdout (up to the cap)
    std::string err; // what it wrote to stderr (up to the cap)
    double started_s = 0; // steady clock (seconds) at spawn: the timeout counts from here
    double seconds = 0; // wall time from spawn to reap
    int others_killed = 0; // processes it had started that were still running at its end
    bool ok() const
    {
        return !spawn_failed && !timed_out && !stopped && output_capped.empty() && signal == 0 && exit_status == 0;
    }
    // "exit 3", "killed by signal 9", "timed out after 2 s", "wrote more than 64 MiB to stdout ...",
    // "stopped: the run was asked to stop", "could not start: ..."
    std::string describe() const;
};

// The environment of a contained child: this process's, `overrides` on top, and the containment's
// tag (util/process_containment.h). Built before fork, since the child of a threaded process may
// only make async-signal-safe calls (setenv allocates, and another thread may hold the allocator's
// lock at the fork). Shared with the worker arms' long-lived processes (workloads/worker).
std::vector<std::string> child_environment(
    const std::map<std::string, std::string>& overrides, const ProcessContainment& containment);

// Never throws for a failing command: the failure is in the result.
ProcessResult run_process(const ProcessSpec& spec);

// The child's side of fork() for a contained process (a command arm, a worker): its own process
// group, killed with kwb (PR_SET_PDEATHSIG; _exit(127) if kwb is already gone), stdin (unless
// `in_fd` is -1), stdout and stderr on the given fds, default signal handling, `cwd` (empty: kwb's),
// then `/bin/sh -c` with `argv` and `envp`. Only async-signal-safe calls; never returns.
[[noreturn]] void exec_contained_child(
    pid_t parent, int in_fd, int out_fd, int err_fd, const char* cwd, char** argv, char** envp);

// The last `max_bytes` of a captured stream, with a note when it was cut.
std::string tail(const std::string& text, std::size_t max_bytes = 4096);

} // namespace kwb::command
