// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/workload_description.h"

#include <string_view>
#include <vector>

// The built-in workloads' descriptions, the one copy the kernels (kernels/cpu, the GPU plugin's
// twins), `kwb new` / `kwb workloads` and the window's editors all read.
namespace kwb {

const WorkloadDescription& gemm_description();
const WorkloadDescription& attention_prefill_description();
const WorkloadDescription& attention_decode_description(); // cuda only
const WorkloadDescription& rmsnorm_description();
const WorkloadDescription& bandwidth_description();
const WorkloadDescription& tiny_llm_description();
const WorkloadDescription& synthetic_description();
// External commands as arms (docs/adapters.md): no parameters; its metrics are the adapters'.
const WorkloadDescription& command_description();

// Every one of them, in the order `kwb workloads` lists them.
const std::vector<const WorkloadDescription*>& builtin_descriptions();
// By name or alias ("triad" finds "bandwidth"); null when none has it.
const WorkloadDescription* find_builtin_description(std::string_view name);

} // namespace kwb
