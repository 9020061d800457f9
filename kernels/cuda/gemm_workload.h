// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gpu_workload.h"

namespace kwb::cuda {

// `gemm`: C (fp32) = A (M x K bf16) * B (K x N bf16), fp32 accumulation. m, n, k (default 4096,
// any positive size); impl = tiled | cublaslt; tiled tunables block_m, block_n (64|128|256),
// block_k (32|64), stages (2..4), warps (4|8) from the set gemm_tiled.h lists.
WorkloadKind gemm_kind();

} // namespace kwb::cuda
