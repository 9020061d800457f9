// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/range_profile_pass.h"

#include "workloads/command/command_spec.h"
#include "workloads/worker/worker_check.h"

#include <fmt/format.h>

namespace kwb {

std::string range_profile_unavailable(const Experiment& e, const Arm& arm, Backend backend)
{
    if (arm.command || e.workload == command::kCommandWorkload)
        return "a command arm: its kernels run in another process, out of in-process CUPTI's sight (profile the "
               "command itself with ncu)";
    if (arm.worker || e.workload == worker::kWorkerWorkload)
        return "a worker arm: its kernels run in the worker's process, out of in-process CUPTI's sight (profile the "
               "worker with ncu)";
    if (backend != Backend::Cuda)
        return "the range profiler needs the CUDA backend (CUPTI counters of this process's kernels); this "
               "experiment runs on the CPU backend";
    return {};
}

std::vector<RangeProfileArm> range_profile_arms(
    const Workload& workload, const Experiment& e, Backend backend, const RangeProfilePassOptions& o)
{
    const std::string metrics = nlohmann::json(range_profiler_cupti_names()).dump();
    std::vector<RangeProfileArm> out;
    for (const Arm& arm : e.arms) {
        RangeProfileArm a;
        a.arm = arm.name;
        if (a.unavailable = range_profile_unavailable(e, arm, backend); !a.unavailable.empty()) {
            out.push_back(std::move(a));
            continue;
        }
        if (!o.api) {
            a.unavailable
                = o.api_reason.empty() ? std::string("no range profiler in the GPU backend plugin") : o.api_reason;
            out.push_back(std::move(a));
            continue;
        }
        const auto params = resolve_params(workload, arm.params, Backend::Cuda);
        const char* text = o.api->range_profile(
            workload.name().c_str(), params.dump().c_str(), o.device, o.launches, metrics.c_str());
        const auto reply = nlohmann::json::parse(text ? text : "", nullptr, false);
        a = range_profile_from_reply(arm.name, reply);
        if (reply.is_object()) {
            if (const auto v = reply.find("verified"); v != reply.end() && v->is_object() && !v->value("ok", false))
                a.notes.push_back(fmt::format("its output check failed ({}): the counters are of a wrong result",
                    v->value("compared", std::string("against its reference"))));
        }
        // Kernel replay restores memory between passes, not the cache: launches run back to back,
        // warm, whatever the arm's cache setting.
        if (params.value("cache", std::string("hot")) == "cold")
            a.notes.push_back("cache=cold: profiled warm, launches back to back (the range profiler does not flush "
                              "the L2 before each launch)");
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace kwb
