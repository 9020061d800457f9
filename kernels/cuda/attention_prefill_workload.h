// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gpu_workload.h"

namespace kwb::cuda {

// `attention_prefill`: causal self-attention of a packed varlen batch, bf16 in and out, fp32
// softmax and accumulation, on mma.sync tensor cores (attention_prefill_kernel.cuh). Parameters:
// batch, heads, kv_heads (divides heads), head_dim 64|128, seq_len (the longest sequence),
// length_spread (percent: lengths uniform in [seq_len * (1 - spread), seq_len] by `seed`),
// block_m 64|128 (query rows per block), block_n 32|64|128 (keys per tile), stages 2|3 (cp.async
// ring of K/V tiles), warps 4|8 (block_m / warps is 16 or 32 rows per warp).
WorkloadKind attention_prefill_kind();

} // namespace kwb::cuda
