// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gpu_workload.h"

namespace kwb::cuda {

// tiny_llm: the CPU backend's small Llama-style decoder in bf16, serving a seeded schedule of
// requests (paged prefill and decode attention, GEMV or cuBLASLt linear layers, optional CUDA
// graph of the decode step); reports TTFT, ITL and tok/s per repetition.
WorkloadKind tiny_llm_kind();

} // namespace kwb::cuda
