// SPDX-License-Identifier: GPL-3.0-or-later
#include "stop_signal.h"

#include <csignal>

namespace kwb::cli {
namespace {

// Lock-free atomics are async-signal-safe to store to; a mutex or an allocation would not be.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void on_signal(int sig)
{
    g_signal.store(sig);
    g_stop.store(true);
    // The next SIGINT or SIGTERM kills: restore both defaults (SA_RESETHAND resets only this one).
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
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

} // namespace kwb::cli
