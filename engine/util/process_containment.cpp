// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/process_containment.h"

#include "util/process_tree.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace kwb {
namespace {

std::atomic<bool> g_subreaper {false};

// Leaders of live containments in this process: never claimed as orphans by another one.
std::mutex g_leaders_mutex;
std::set<pid_t> g_leaders;

bool is_registered_leader(pid_t pid)
{
    std::lock_guard lock(g_leaders_mutex);
    return g_leaders.count(pid) > 0;
}

// Signals the process `e` names and no other: through a pidfd opened on it and checked against
// its start time, so a pid reused since the snapshot is never hit. Plain kill() where the kernel
// has no pidfds (before 5.3).
void signal_process(const ProcessEntry& e, int sig)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, e.pid, 0));
    if (fd >= 0) {
        const auto now = read_process(e.pid);
        if (now && now->start_ticks == e.start_ticks)
            ::syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0);
        ::close(fd);
        return;
    }
    if (errno != ENOSYS)
        return; // gone (ESRCH) or not ours to signal
#endif
    ::kill(e.pid, sig);
}

} // namespace

bool become_subreaper()
{
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        return false;
    g_subreaper.store(true);
    return true;
}

bool is_subreaper()
{
    return g_subreaper.load();
}

ProcessContainment::ProcessContainment()
{
    static std::atomic<unsigned> serial {0};
    std::random_device rd;
    const std::string value = fmt::format("{}.{}.{:08x}{:08x}", ::getpid(), ++serial, rd(), rd());
    tag_entry_ = fmt::format("{}={}", kProcessTagVariable, value);
    tag_value_offset_ = tag_entry_.size() - value.size();
}

ProcessContainment::~ProcessContainment()
{
    if (leader_ > 0) { // the caller never got to reap it (an exception): end and reap it here
        end_all();
        int status = 0;
        ::waitpid(leader_, &status, 0);
        leader_reaped();
    }
}

void ProcessContainment::leader_reaped()
{
    std::lock_guard lock(g_leaders_mutex);
    g_leaders.erase(leader_);
    leader_ = -1;
}

void ProcessContainment::set_leader(pid_t leader)
{
    leader_ = leader;
    std::lock_guard lock(g_leaders_mutex);
    g_leaders.insert(leader);
}

int ProcessContainment::end_all()
{
    const pid_t self = ::getpid();
    const bool claim_orphans = is_subreaper();
    // Everything stopped so far, by pid, with the entry it was stopped as (start time: identity).
    std::map<pid_t, ProcessEntry> caught;
    // Passes until one finds nothing new. Each stops what it found, so a pass can only find what
    // was forked before its process was stopped; bounded all the same (a fork bomb outrunning
    // /proc reads is then killed as far as it was caught).
    for (int pass = 0; pass < 64; ++pass) {
        const auto processes = list_processes();
        std::vector<pid_t> roots;
        for (const auto& p : processes) {
            if (p.pid == self || p.dead())
                continue;
            const bool mine = (leader_ > 0 && (p.pid == leader_ || p.pgid == leader_))
                || (claim_orphans && p.ppid == self && !is_registered_leader(p.pid))
                || environ_contains(p.pid, tag_entry_);
            if (mine)
                roots.push_back(p.pid);
        }
        std::map<pid_t, const ProcessEntry*> by_pid;
        for (const auto& p : processes)
            by_pid[p.pid] = &p;
        bool found_new = false;
        for (const pid_t pid : with_descendants(processes, roots)) {
            if (pid == self)
                continue;
            const ProcessEntry& p = *by_pid.at(pid);
            if (p.dead() || (pid != leader_ && is_registered_leader(pid)))
                continue;
            const auto known = caught.find(pid);
            if (known != caught.end() && known->second.start_ticks == p.start_ticks)
                continue;
            caught[pid] = p;
            signal_process(p, SIGSTOP);
            found_new = true;
        }
        if (!found_new)
            break;
    }
    for (const auto& [pid, p] : caught)
        signal_process(p, SIGKILL);
    if (leader_ > 0)
        ::kill(-leader_, SIGKILL); // the group cannot be reused while its unreaped leader anchors it

    // Reap this process's children among them (orphans adopted as subreaper, or direct children of
    // the leader's that reparented here), and in a subreaper every other unclaimed dead child.
    // Others' children are reaped by their own parents. Bounded: a process in uninterruptible
    // sleep (D) dies when its I/O returns.
    int killed = 0;
    for (const auto& [pid, p] : caught)
        if (pid != leader_)
            ++killed;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (true) {
        bool waiting = false;
        for (const auto& p : list_processes()) {
            if (p.ppid != self || p.pid == leader_ || is_registered_leader(p.pid))
                continue;
            const auto c = caught.find(p.pid);
            const bool ours = c != caught.end() && c->second.start_ticks == p.start_ticks;
            if (!ours && !claim_orphans)
                continue;
            if (p.dead()) {
                int status = 0;
                ::waitpid(p.pid, &status, WNOHANG);
            } else if (ours) {
                waiting = true;
            }
        }
        if (!waiting || std::chrono::steady_clock::now() > until)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return killed;
}

} // namespace kwb
