// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_backend_abi.h"
#include "sampling/sampler.h"

#include <memory>
#include <string>
#include <vector>

namespace kwb {

class QueuedSampler;

// The samplers a run gets, chosen automatically: procfs always; on a CUDA run also NVML and CUPTI
// PM sampling when they can run. What cannot run is known here, before the first repetition, and
// comes back as one line per limitation (stamped on the experiment's `limitations`); the run
// itself goes on with GPU event timing either way.
struct SamplerSet {
    std::vector<std::unique_ptr<Sampler>> owned;
    std::vector<std::string> limitations;
    QueuedSampler* cupti = nullptr; // null when PM sampling is off
    QueuedSampler* nvml = nullptr;

    std::vector<Sampler*> pointers() const;
};

struct SamplerChoice {
    bool gpu = false; // a CUDA run
    const KwbGpuBackendApi* api = nullptr; // the plugin, or null
    std::string api_reason; // why there is no plugin
    int device = 0;
    std::string gpu_uuid; // for NVML ("GPU-..."); empty: NVML device 0
    double cupti_interval_s = 1e-3;
    bool cupti = true; // --no-cupti turns PM sampling off
};

SamplerSet choose_samplers(const SamplerChoice& choice);

} // namespace kwb
