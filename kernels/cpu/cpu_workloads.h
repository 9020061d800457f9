// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/workload.h"

#include <memory>

// The CPU workloads, one factory per workload file; builtin_workloads() registers them.
namespace kwb::cpu {

std::unique_ptr<Workload> make_gemm_workload();
std::unique_ptr<Workload> make_attention_workload();
std::unique_ptr<Workload> make_rmsnorm_workload();
std::unique_ptr<Workload> make_triad_workload();
std::unique_ptr<Workload> make_tiny_llm_workload();
std::unique_ptr<Workload> make_synthetic_workload();
std::unique_ptr<Workload> make_attention_decode_workload();

} // namespace kwb::cpu
