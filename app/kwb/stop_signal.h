// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study_lock.h"

#include <atomic>
#include <optional>
#include <string>

namespace kwb::cli {

// Installs SIGINT and SIGTERM handlers that only set the returned flag; the runner checks it
// between repetitions, and a command arm's wait watches it (the arm and everything it started are
// ended at once), so the run stops within a second, keeps every finished repetition, saves, ends
// the progress stream and exits 130.
//
// A second signal of either kind does not cut that orderly stop short: `timeout 0.6 kwb run`
// sends two SIGTERMs at once (one to kwb, one to its process group), and a death by the second
// left the study `running`, no `end` event and the lock file behind. It is counted and said on
// stderr; the stop is bounded (nothing waits on the arm any more), so it ends soon. A third
// exits 130 at once (the user insists): the lock file is removed and the stream ended, but the
// study may still say `running` (saves are atomic, so it is whole; kwb run resumes it).
//
// In exit-at-once mode (set_exit_at_once), outside a protected section, the first signal exits 130
// at once instead: kwb run uses it while the study loads and is checked, when nothing measured is
// in flight and there is nothing to wait for (loading a huge study takes seconds).
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

// The progress stream an immediate exit ends with `line` (its `end` event), or none (fd -1).
// The writer marks a line it has only partly written (set_stream_mid_line), so the exit's line
// starts on a line of its own.
void set_exit_stream(int fd, const std::string& line);
void set_stream_mid_line(bool mid_line);

// Takes the study's lock (study/study_lock.h) and names its file for removal by an immediate exit, as
// one step a signal cannot split: a signal between the two left the lock file behind. A signal in
// between only sets the flag (the caller stops at its next check). Returns an empty optional with
// `holder` set when another process holds the lock; throws what StudyLock::try_acquire throws.
std::optional<StudyLock> lock_study_for_exit(const std::string& path, LockHolder* holder);

} // namespace kwb::cli
