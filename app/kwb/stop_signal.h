// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>

namespace kwb::cli {

// Installs SIGINT and SIGTERM handlers that only set the returned flag; the runner checks it
// between repetitions, so a repetition in flight finishes and is saved before kwb exits 130.
// A second signal of either kind takes its default action (the user insists): the study file is
// still whole, because every save is atomic.
const std::atomic<bool>& install_stop_signals();

// Sets the flag without a signal (the progress stream's reader went away): the run stops after
// the repetition in flight, as on SIGINT. Async-signal-safe.
void request_stop();

// The signal that set the flag (SIGINT or SIGTERM), 0 when none has arrived.
int stop_signal_number();

} // namespace kwb::cli
