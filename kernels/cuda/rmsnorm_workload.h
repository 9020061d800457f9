// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gpu_workload.h"

namespace kwb::cuda {

// `rmsnorm`: y = x / sqrt(mean(x^2) + 1e-6) * w over rows x hidden; x, y and w bf16, fp32 sums.
// rows (default 8192), hidden (default 4096), vector_width 1|2|4|8 bf16 per access (hidden must
// be a multiple), rows_per_block 1|2|4|8 (256 threads per block, 256/rows_per_block per row).
WorkloadKind rmsnorm_kind();

} // namespace kwb::cuda
