// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/binding_classifier.h"
#include "hardware/gpu_backend_abi.h"
#include "hardware/kernel_evidence.h"
#include "study/study.h"
#include "workloads/workload.h"

#include <string>
#include <vector>

// Phase 3's measurement: a profiling pass over one arm (the baseline), never during the timed
// A/B. On a GPU:
//   1. warm-up, then repetitions timed with CUDA events and nothing attached (the wall-clock view);
//   2. repetitions with CUPTI Activity (every kernel's name and window) and CUPTI PM sampling at
//      1 ms (DRAM %, occupancy, tensor/FMA pipe, SM %...) decoded on its own thread;
//   3. the samples attributed to kernels (hardware/kernel_evidence.h) and classified
//      (hardware/binding_classifier.h).
// What cannot run is found before it is needed (the plugin's cupti_status: counters restricted
// to admin users, no CUPTI, an unsupported GPU) and stamped as a limitation with its fix; the pass
// then goes on with Activity alone where it works, else with event timing alone.
// On the CPU: timing and procfs (process CPU time, machine load); no counters, and no launches.
namespace kwb {

struct ProfilePassOptions {
    int device = 0;
    bool cupti = true; // false: event timing (and NVML-free) only, as without CUPTI
    double profile_ms = 300; // wall time of the profiled repetitions, at least
    double pm_interval_s = 1e-3;
    BindingThresholds thresholds {};
    const KwbGpuBackendApi* api = nullptr; // the plugin (null: what the CUDA backend lacks is stamped)
    std::string api_reason; // why there is no plugin
    // The device's measured bandwidth ceiling (speed_of_light_roofs: the larger of kwb calibrate's
    // read-only and copy ceilings) and its name; the classifier compares the timed bytes with it.
    std::optional<double> bandwidth_ceiling_gbs;
    std::string bandwidth_ceiling_name;
};

struct ProfilePassResult {
    std::string source; // "cupti" (PM sampling + Activity), "activity", "events", "procfs"
    ProfileEvidence evidence;
    BindingEvidenceInput input;
    BindingCall call;
    std::vector<std::string> limitations;
    nlohmann::json extra = nlohmann::json::object(); // further measured figures (CPU time, load, launches...)
};

// Runs the pass over `arm` of `workload` on `backend`. Throws WorkloadError when the workload
// itself fails.
ProfilePassResult profile_arm(
    const Workload& workload, const Arm& arm, Backend backend, const ProfilePassOptions& options);

// Writes the result into the study's binding section (a fresh section: the profiled call
// replaces whatever was there; `notes` typed by the user are kept).
void store_binding(BindingEvidence& binding, const ProfilePassResult& result, const std::string& experiment,
    const std::string& arm, const BindingThresholds& thresholds, const std::string& measured_at);

} // namespace kwb
