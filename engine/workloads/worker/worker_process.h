// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/process_containment.h"

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <sys/types.h>

// The long-lived process of one worker arm (docs/worker-protocol.md, Transport): `/bin/sh -c CMD`
// as the leader of its own process group under a ProcessContainment, so ending it ends everything
// it started (util/process_containment.h). Requests go to its stdin, one line each; responses are
// read from its stdout one line at a time, never more than kMaxMessageBytes; its stderr is drained
// all along (a worker blocked on a full stderr pipe would look hung) and its tail kept.
namespace kwb::worker {

// A response line longer than this is a protocol fault: kwb stops reading it.
inline constexpr std::size_t kMaxMessageBytes = 1024 * 1024;

struct LaunchSpec {
    std::string command; // run as /bin/sh -c COMMAND
    std::string cwd; // empty: the current directory
    std::map<std::string, std::string> env; // on top of kwb's environment
    std::size_t stderr_cap_bytes = 64u << 20; // stderr kept in memory (the oldest dropped past it)
};

// What waiting for one response line came to.
struct LineResult {
    enum class Status { Line, Timeout, Closed, TooLong, Stopped, WriteFailed };
    Status status = Status::Closed;
    std::string line; // the line (Line), or what came before the end (Closed: a partial line)
};

class WorkerProcess {
public:
    // Starts the process. Throws std::runtime_error when it cannot be started at all.
    explicit WorkerProcess(const LaunchSpec& spec);
    ~WorkerProcess(); // end()
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    // Writes `request` and a newline, then waits up to `timeout_s` for one line on stdout, reading
    // stderr meanwhile; `stop`, when given and set, ends the wait within 50 ms.
    LineResult exchange(const std::string& request, double timeout_s, const std::atomic<bool>* stop);
    // Bytes the worker wrote to stdout that no request asked for (a library's print): a fault.
    bool has_unrequested_output();

    // Closes its stdin (the worker's signal to exit) and waits up to `timeout_s` for the leader to
    // exit. True when it exited with status 0.
    bool close_and_wait(double timeout_s);
    // Kills the whole containment and reaps the leader; idempotent.
    void end();

    pid_t pid() const { return pid_; }
    const char* tag() const { return containment_.tag_value(); }
    // The last `bytes` of its stderr, with a note when cut.
    std::string stderr_tail(std::size_t bytes = 4096) const;
    // How it ended, once it did: "exit 3", "killed by signal 6 (Aborted)"; empty while it runs.
    std::string exit_text();

private:
    bool leader_exited();
    void pump(int wait_ms); // reads what stdout and stderr have, waiting up to wait_ms
    bool write_all(const std::string& bytes, double deadline_s, const std::atomic<bool>* stop);

    ProcessContainment containment_;
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1;
    std::string out_buffer_, err_buffer_;
    std::size_t stderr_cap_ = 0;
    std::size_t stderr_dropped_ = 0;
    bool out_too_long_ = false;
    bool reaped_ = false;
    int status_ = 0;
};

} // namespace kwb::worker
