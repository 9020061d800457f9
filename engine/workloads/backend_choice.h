// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The backend a run chooses for an experiment, as one rule: kwb run's runnability
// (run/runnability.h) decides with it, and the window asks it for the device an experiment would
// run on, so the two never disagree on where a run goes.
#include "study/study.h"
#include "workloads/workload_description.h"

#include <string_view>

namespace kwb {

// What the asker knows of this machine.
struct BackendContext {
    bool cuda_kernels = false; // the workload's CUDA kernels can run here (the GPU backend loads)
    bool gpu_visible = false; // a CUDA device is visible at the run's index (NVML), plugin or not
    bool device_named = false; // the run named a device (kwb run --device N, a spread-out cell)
};

// What the rule needs of an embedded workload: its backends, and whether both arms' parameters
// fit its CUDA backend (what "auto" needs to pick it).
struct WorkloadBackends {
    bool cpu = true;
    bool cuda = false;
    bool arms_fit_cuda = false;
};
WorkloadBackends workload_backends(const WorkloadDescription& workload, const Experiment& experiment);

// `wanted` is "auto", "cpu" or "cuda" (the run's --backend, else the experiment's).
// - An embedded workload: "cuda" (or a workload with no cpu backend) runs on CUDA; "auto" runs on
//   CUDA when the workload has it, both arms' parameters fit it and its kernels run here; else CPU.
// - A command (the command workload): kwb cannot see what a command runs on, so it runs on the GPU
//   only when told: "cuda", or "auto" when the run names a device and a GPU is visible; else on
//   the host's CPU.
// - A worker experiment: the device the baseline's worker described; `wanted` cannot move it.
// Whether the chosen backend is usable here is the caller's check (runnability says why not).
Backend chosen_backend(const Experiment& experiment, std::string_view wanted, const WorkloadBackends& workload,
    const BackendContext& here);

} // namespace kwb
