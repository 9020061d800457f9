// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <string>

namespace kwb::cli {

// Installs SIGINT and SIGTERM handlers that only set the returned flag; the runner checks it
// between repetitions, so a repetition in flight finishes and is saved before kwb exits 130.
// A second signal of either kind takes its default action (the user insists): the study file is
// still whole, because every save is atomic.
//
// In exit-at-once mode (set_exit_at_once), outside a protected section, the handler exits 130 at
// once instead: kwb run uses it while the study loads and is checked, when nothing measured is in
// flight and there is nothing to wait for (loading a huge study takes seconds).
const std::atomic<bool>& install_stop_signals();

// Sets the flag without a signal (the progress stream's reader went away): the run stops after
// the repetition in flight, as on SIGINT. Async-signal-safe.
void request_stop();

// The signal that set the flag (SIGINT or SIGTERM), 0 when none has arrived.
int stop_signal_number();

// Whether a signal outside a protected section exits 130 at once (default: false, only the flag).
void set_exit_at_once(bool at_once);

// Marks a repetition or a save in flight: a signal then only sets the flag. Leaving the section
// does not exit by itself; the run loop sees the flag at the next boundary.
void set_protected(bool in_flight);

// A file the immediate exit removes first (the study's lock file: the kernel drops the lock with
// the process, and this leaves nothing behind). Empty: none.
void set_exit_cleanup_path(const std::string& path);

} // namespace kwb::cli
