// SPDX-License-Identifier: GPL-3.0-or-later
#include "stop_signal.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace kwb::cli {
namespace {

// Lock-free atomics are async-signal-safe to store to; a mutex or an allocation would not be.
std::atomic<bool> g_stop {false};
std::atomic<int> g_signal {0};
std::atomic<int> g_count {0};
std::atomic<bool> g_at_once {false};
std::atomic<bool> g_protected {false};
std::atomic<int> g_stream_fd {-1};
std::atomic<bool> g_stream_mid_line {false};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);
// Written before the handler can use them (set while the matching flag says "not in use");
// fixed buffers, because the handler may not allocate.
char g_cleanup[4096] = {};
char g_end_line[512] = {};

void say(const char* text)
{
    [[maybe_unused]] const auto n = ::write(STDERR_FILENO, text, std::strlen(text));
}

[[noreturn]] void exit_now(const char* message)
{
    if (g_cleanup[0] != '\0')
        ::unlink(g_cleanup);
    if (const int fd = g_stream_fd.load(); fd >= 0) {
        if (g_stream_mid_line.load()) [[maybe_unused]]
            const auto n = ::write(fd, "\n", 1);
        [[maybe_unused]] const auto n = ::write(fd, g_end_line, std::strlen(g_end_line));
    }
    say(message);
    ::_exit(130);
}

void on_signal(int sig)
{
    const int count = g_count.fetch_add(1) + 1;
    if (count == 1)
        g_signal.store(sig);
    g_stop.store(true);
    if (g_at_once.load() && !g_protected.load())
        exit_now("kwb: stopped by a signal (nothing was in flight; the study keeps every finished repetition)\n");
    if (count == 2)
        say("kwb: a second signal: already stopping (the arm has been ended; saving what finished); a third exits at "
            "once\n");
    else if (count >= 3)
        exit_now("kwb: stopped at once by a third signal; the study keeps every saved repetition (it may still say "
                 "running: kwb run resumes it)\n");
}

} // namespace

const std::atomic<bool>& install_stop_signals()
{
    struct sigaction sa = {};
    sa.sa_handler = on_signal;
    // Each blocks the other while it runs: a SIGINT landing inside the SIGTERM handler must not
    // count before the first has been counted.
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    return g_stop;
}

void request_stop()
{
    g_stop.store(true);
}

int stop_signal_number()
{
    return g_signal.load();
}

void set_exit_at_once(bool at_once)
{
    g_at_once.store(at_once);
}

void set_protected(bool in_flight)
{
    g_protected.store(in_flight);
}

void set_exit_cleanup_path(const std::string& path)
{
    // The first byte last: a handler running meanwhile sees no path (an empty one) or the whole
    // new one, never half of one.
    g_cleanup[0] = '\0';
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const size_t n = std::min(path.size(), sizeof g_cleanup - 1);
    if (n == 0)
        return;
    std::memcpy(g_cleanup + 1, path.data() + 1, n - 1);
    g_cleanup[n] = '\0';
    std::atomic_signal_fence(std::memory_order_seq_cst);
    g_cleanup[0] = path[0];
}

void set_exit_stream(int fd, const std::string& line)
{
    g_stream_fd.store(-1); // not read while it changes
    const size_t n = std::min(line.size(), sizeof g_end_line - 1);
    std::memcpy(g_end_line, line.data(), n);
    g_end_line[n] = '\0';
    g_stream_fd.store(fd);
}

void set_stream_mid_line(bool mid_line)
{
    g_stream_mid_line.store(mid_line);
}

std::optional<StudyLock> lock_study_for_exit(const std::string& path, LockHolder* holder)
{
    set_protected(true);
    struct Unprotect {
        ~Unprotect() { set_protected(false); }
    } unprotect;
    std::optional<StudyLock> lock = StudyLock::try_acquire(path, holder);
    if (lock)
        set_exit_cleanup_path(study_lock_path(path).string());
    return lock;
}

} // namespace kwb::cli
