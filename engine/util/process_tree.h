// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string_view>
#include <sys/types.h>
#include <vector>

// What /proc says about the processes of this machine: who is whose parent, which group and
// session each is in, when it started. The process control of command and worker arms
// (util/process_containment.h) finds what an arm started through it, including processes that
// left the arm's process group (setsid) or were orphaned.
namespace kwb {

struct ProcessEntry {
    pid_t pid = 0;
    pid_t ppid = 0;
    pid_t pgid = 0;
    pid_t sid = 0;
    // Clock ticks after boot at which it started: with the pid, names one process even when the
    // pid is reused later.
    unsigned long long start_ticks = 0;
    char state = '?'; // R, S, D, T, Z (zombie: dead, waiting to be reaped), X ...
    bool dead() const { return state == 'Z' || state == 'X'; }
};

// One process, from /proc/PID/stat; nullopt when it is gone.
std::optional<ProcessEntry> read_process(pid_t pid);

// Every process visible in /proc (those that vanish while it is read are left out).
std::vector<ProcessEntry> list_processes();

// Whether the environment of `pid` holds the exact entry `name_value` ("NAME=VALUE"). False when
// it cannot be read (another user's process, gone, a kernel thread).
bool environ_contains(pid_t pid, std::string_view name_value);

// The pids of `roots` and of all their descendants in `processes` (by parent pid), each once.
std::vector<pid_t> with_descendants(const std::vector<ProcessEntry>& processes, const std::vector<pid_t>& roots);

} // namespace kwb
