// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gpu_workload.h"

namespace kwb::cuda {

// `bandwidth`: op = copy (a = b) | triad (a = b + 3*c); bytes_mib MiB per fp32 array (default
// 1024); vector_width 1|2|4|8 fp32 per thread access; block_threads (default 256).
WorkloadKind bandwidth_kind();

} // namespace kwb::cuda
