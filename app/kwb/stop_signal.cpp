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
std::atomic<bool> g_at_once {false};
std::atomic<bool> g_protected {false};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);
// Written before the handler can use it (set_exit_cleanup_path runs before the lock is taken and
// after it is released); a fixed buffer, because the handler may not allocate.
char g_cleanup[4096] = {};

void on_signal(int sig)
{
    g_signal.store(sig);
    g_stop.store(true);
    // The next SIGINT or SIGTERM kills: restore both defaults (SA_RESETHAND resets only this one).
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (g_at_once.load() && !g_protected.load()) {
        if (g_cleanup[0] != '\0')
            ::unlink(g_cleanup);
        static const char message[] = "kwb: stopped by a signal (nothing was in flight; the study keeps every finished "
                                      "repetition)\n";
        [[maybe_unused]] const auto n = ::write(STDERR_FILENO, message, sizeof message - 1);
        ::_exit(130);
    }
}

} // namespace

const std::atomic<bool>& install_stop_signals()
{
    struct sigaction sa = {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
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
    const bool was = g_at_once.exchange(false); // not read while it changes
    const size_t n = std::min(path.size(), sizeof g_cleanup - 1);
    std::memcpy(g_cleanup, path.data(), n);
    g_cleanup[n] = '\0';
    g_at_once.store(was);
}

} // namespace kwb::cli
