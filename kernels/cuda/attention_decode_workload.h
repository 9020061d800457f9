// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gpu_workload.h"

namespace kwb::cuda {

// `attention_decode`: one query token per sequence against a paged KV cache, grouped-query
// (heads / kv_heads query heads share a KV head). Parameters: batch, heads, kv_heads (heads /
// kv_heads in 1, 2, 4, 8), head_dim 64|128, context (longest sequence), length_spread (percent:
// lengths drawn uniformly from [context * (1 - spread), context] by `seed`), page_size
// 16|32|64|128, page_order shuffled|ordered (every sequence's pages scattered over one pool by
// `seed`, or consecutive), splits (1 = no split-KV; else that many token ranges per sequence and a
// combine kernel), stages 2..6 (the tile ring), kv_dtype bf16|fp8 (e4m3 with a per-KV-head
// scale), impl simt|mma. Bytes per launch: the K and V bytes of every sequence's context, read
// once.
WorkloadKind attention_decode_kind();

} // namespace kwb::cuda
