// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "workloads/command/adapter.h"
#include "workloads/command/command_spec.h"
#include "workloads/workload.h"

#include <memory>

// The `command` workload: each arm is an external command line (Arm::command) whose output an
// adapter reads into metrics. One repetition = one run of the command in its own process group
// (ended with everything it started at its exit, its timeout, past the output cap or on a stop:
// util/process_containment.h), bracketed by the per-repetition setup and teardown; the arm's setup
// runs once, when the arm is first checked (verify) or run, its check command (exit 0 = correct)
// right after. A failing repetition comes back with RepetitionResult::failed set and its stderr
// tail: the runner records it and never reads it as a number. One cut short by the run's stop
// request comes back `interrupted` and is not recorded.
namespace kwb::command {

inline constexpr std::size_t kTailBytes = 4096; // of stdout and stderr kept per repetition

// One repetition, what `test once` shows: the process, the adapter that read it, what it read.
struct Attempt {
    bool ok = false;
    std::string error; // why nothing was read (exit status, timeout, adapter error)
    std::optional<int> exit_status;
    std::string stdout_tail, stderr_tail;
    std::string adapter; // the adapter used (auto: the one detected)
    Reading reading;
    double seconds = 0;
    std::optional<double> peak_gpu_mem_mib;
    bool interrupted = false; // cut short by the stop request: neither a measurement nor a failure
};

// Runs the arm's command once (with the per-repetition setup/teardown) and reads it, the reading
// within the timeout (which counts from the command's start) and each stream within the cap
// (CommandSpec::max_output_mib). `stop`, when given, is watched throughout: once set, the command
// and everything it started are ended and the attempt comes back `interrupted`. Never throws for a
// failing command; throws AdapterError for bad adapter options.
Attempt run_attempt(const CommandSpec& spec, const std::atomic<bool>* stop = nullptr);

std::unique_ptr<Workload> make_command_workload();

} // namespace kwb::command
