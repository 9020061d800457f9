// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The commands that print results (verdict, devices, workloads, new) are worth nothing when their
// output is lost: a full disk (`kwb verdict --json > full`) or a reader that closed the pipe is
// exit 1 with one line on stderr, never exit 0 with an empty file. kwb run is not checked here:
// its results are in the study, and a closed progress pipe is its documented stop (exit 130).
namespace kwb::cli {

// Makes a closed pipe an error a write returns (EPIPE) rather than a silent death by SIGPIPE.
void ignore_broken_pipe_signal();

// Flushes stdout; when that or any earlier write failed, prints "kwb: cannot write the output:
// <reason>" and returns 1 (kRunFailed). Otherwise returns `code`.
int checked_stdout(int code);

} // namespace kwb::cli
