// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/backend_choice.h"

#include "study/arm_roles.h"
#include "workloads/command/command_spec.h"
#include "workloads/worker/worker_check.h"

namespace kwb {

WorkloadBackends workload_backends(const WorkloadDescription& w, const Experiment& e)
{
    const AbArms arms = ab_arms(e);
    return {has_backend(w, Backend::Cpu), has_backend(w, Backend::Cuda),
        arms.baseline && arms.treatment && params_fit_backend(w, arms.baseline->params, Backend::Cuda)
            && params_fit_backend(w, arms.treatment->params, Backend::Cuda)};
}

Backend chosen_backend(
    const Experiment& e, std::string_view wanted, const WorkloadBackends& w, const BackendContext& here)
{
    if (e.workload == worker::kWorkerWorkload) {
        const Arm* baseline = ab_arms(e).baseline;
        return baseline && baseline->worker && baseline->worker->description.device.kind == "cuda" ? Backend::Cuda
                                                                                                   : Backend::Cpu;
    }
    if (e.workload == command::kCommandWorkload)
        return wanted == "cuda" || (wanted == "auto" && here.device_named && here.gpu_visible) ? Backend::Cuda
                                                                                               : Backend::Cpu;
    if (!w.cpu || wanted == "cuda")
        return Backend::Cuda;
    return wanted == "auto" && w.cuda && w.arms_fit_cuda && here.cuda_kernels ? Backend::Cuda : Backend::Cpu;
}

} // namespace kwb
