// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "workloads/worker/worker_check.h"
#include "workloads/workload.h"

#include <memory>
#include <string>

// The `worker` workload (docs/worker-protocol.md): each arm is a long-lived worker process
// (Arm::worker) that kwb starts once per arm and experiment, on first use (so the run's stop
// request reaches a slow first compile too), and drives over the protocol: `time` once per
// calibration step, warm-up and repetition with one launch count for both arms, `verify` before
// the warm-ups and again after the last repetition, `release` at the end.
//
// Faults are failed repetitions, never numbers: the worker's process group is ended, the
// repetition kept with its reason and stderr tail, and the worker started again once per arm
// (hello, describe, prepare) before that arm's next repetition; a second fault of the arm ends the
// experiment (RepetitionResult::arm_lost). An `ok: false` answer to `time` fails that repetition
// only (the worker lives on); the command arms' failure limit applies to both
// (command::too_many_failures). A failure to start, describe or prepare fails the arm.
namespace kwb::worker {

// kwb's own parameter of every worker arm: hot (launches back to back) or cold (L2 flushed before
// each launch), as for the embedded CUDA workloads. Sent to the worker only when it describes it.
inline constexpr const char* kCacheParam = "cache";
// The seed of `prepare`: the same for every arm, so both arms time the same inputs.
inline constexpr std::uint64_t kPrepareSeed = 1;

std::unique_ptr<Workload> make_worker_workload();

// The worker's parameters and metrics as a Workload, for resolve_params, kwb new's --param /
// --vary / --grid and runnability: the described parameters (plus `cache`, hot or cold, unless the
// worker describes its own), time_ms, gbs and tflops (from prepare's byte and FLOP counts) and the
// described metrics. validate() refuses a value outside a parameter's listed values.
std::unique_ptr<Workload> described_workload(const WorkerDescription& description);

// The parameters sent in `prepare`: the arm's values of the described parameters, defaults filled.
nlohmann::json worker_params(const WorkerDescription& description, const nlohmann::json& resolved);

// Starts the worker once (on CUDA device `device`), says hello, asks describe and releases it:
// what `kwb new` records. Throws WorkloadError (a WorkerFault with the stderr tail, or the
// worker's own error) when it cannot.
WorkerDescription describe_worker(const WorkerSpec& spec, const std::string& arm, int device = 0);

} // namespace kwb::worker
