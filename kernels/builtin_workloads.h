// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/workload.h"

namespace kwb {

// Every built-in workload (the CPU twins; CUDA backends join them when the GPU backend loads).
const WorkloadRegistry& builtin_workloads();

} // namespace kwb
