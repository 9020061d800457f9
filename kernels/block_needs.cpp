// SPDX-License-Identifier: GPL-3.0-or-later
#include "block_needs.h"

#include "builtin_workloads.h"

namespace kwb {

std::optional<BlockNeeds> builtin_block_needs(const Experiment& experiment, const Arm& arm)
{
    if (experiment.backend != "cuda" && experiment.backend != "auto")
        return std::nullopt;
    const Workload* w = builtin_workloads().find(experiment.workload);
    if (!w || w->name() != "gemm")
        return std::nullopt;
    try {
        return gemm_cuda_block_needs(resolve_params(*w, arm.params, Backend::Cuda));
    } catch (const WorkloadError&) {
        return std::nullopt; // parameters of the cpu backend: nothing runs on a GPU
    }
}

} // namespace kwb
