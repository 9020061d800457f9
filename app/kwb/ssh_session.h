// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

// ssh as the user's own `ssh` program runs it, so ~/.ssh/config, keys and the agent apply. Why not
// a library: the user's ssh setup (jump hosts, ControlMaster, Kerberos, hardware keys) is whatever
// their `ssh` understands, and only `ssh` itself understands all of it.
//
// KWB_SSH replaces the program and may add options, split on spaces: `KWB_SSH="ssh -F cfg"`
// (the tests point it at a generated config and a server on localhost).
namespace kwb::cli {

// The ssh command line without destination: KWB_SSH (or "ssh") and the keep-alive and connect
// time-out options that let a dropped connection be noticed within about 30 s instead of hanging.
std::vector<std::string> ssh_command();

// One argument quoted for a POSIX shell: 'it'\''s'.
std::string shell_quote(std::string_view word);

// A remote folder as a shell word: "~/x" and "x" live under the remote home ("$HOME"/'x').
std::string remote_shell_path(std::string_view folder);

struct ProcessResult {
    int exit_code = -1; // 255: ssh itself failed (no connection, authentication); -1: killed
    std::string out;
    std::string err;
    std::string last_err_line() const;
};

// Runs `ssh HOST COMMAND` (COMMAND runs under `sh -c`), feeding `input` on its stdin, and
// collects what it prints.
ProcessResult ssh_run(const std::string& host, const std::string& script, std::string_view input = {});

// A running `ssh HOST COMMAND` whose stdout is read as it comes (a remote `tail -f`).
class SshStream {
public:
    SshStream(const std::string& host, const std::string& script);
    SshStream(const SshStream&) = delete;
    SshStream& operator=(const SshStream&) = delete;
    ~SshStream();

    // Appends what arrived within `timeout_ms` to `into`; false once the stream has ended (EOF).
    bool read(std::string& into, int timeout_ms);
    // Waits for ssh to exit (kills it first when `kill` is set); returns its exit code, -1 if signalled.
    int finish(bool kill);
    std::string last_err_line() const;

private:
    pid_t pid_ = -1;
    int out_ = -1;
    int err_ = -1;
    std::string err_text_;
    bool ended_ = false;
};

} // namespace kwb::cli
