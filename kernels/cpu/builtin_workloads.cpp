// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"

#include "cpu/cpu_workloads.h"
#include "workloads/command/command_workload.h"
#include "workloads/worker/worker_workload.h"

namespace kwb {

const WorkloadRegistry& builtin_workloads()
{
    static const WorkloadRegistry registry = [] {
        WorkloadRegistry r;
        r.add(cpu::make_gemm_workload());
        r.add(cpu::make_attention_workload());
        r.add(cpu::make_rmsnorm_workload());
        r.add(cpu::make_triad_workload());
        r.add(cpu::make_tiny_llm_workload());
        r.add(cpu::make_synthetic_workload());
        r.add(cpu::make_attention_decode_workload()); // cuda only
        r.add(command::make_command_workload()); // external commands as arms (docs/adapters.md)
        r.add(worker::make_worker_workload()); // worker processes as arms (docs/worker-protocol.md)
        return r;
    }();
    return registry;
}

} // namespace kwb
