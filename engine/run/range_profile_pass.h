// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_backend_abi.h"
#include "study/study.h"
#include "verdict/range_profile.h"
#include "workloads/workload.h"

#include <string>
#include <vector>

// `kwb profile --arms all`: one CUPTI range-profiler pass per arm of an experiment, through the
// plugin's range_profile entry (hardware/gpu_backend_abi.h, KwbGpuRangeProfilerApi). Each pass is
// its own: never while PM sampling runs (the range profiler cannot collect then), and outside any
// timed A/B. Only an embedded workload's arm on the CUDA backend can be profiled: a command or a
// worker arm runs its kernels in another process, which in-process CUPTI cannot reach, and the CPU
// backend has no counters; such an arm comes back unavailable with that reason, so the table
// says so in its place.
namespace kwb {

struct RangeProfilePassOptions {
    int device = 0;
    int launches = 5; // launches profiled per arm (each kernel a range; 120-190 ms a launch on the H200)
    const KwbGpuRangeProfilerApi* api = nullptr; // null: every embedded arm is unavailable with api_reason
    std::string api_reason;
};

// Empty when `arm` of `e` can be range-profiled on `backend`; else why not, in one line.
std::string range_profile_unavailable(const Experiment& e, const Arm& arm, Backend backend);

// Every arm of `e`, in the experiment's order. Throws WorkloadError only for a failure outside any
// one arm; an arm whose pass fails comes back unavailable with the plugin's line.
std::vector<RangeProfileArm> range_profile_arms(
    const Workload& workload, const Experiment& e, Backend backend, const RangeProfilePassOptions& options);

} // namespace kwb
