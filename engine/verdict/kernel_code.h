// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/kernel_occupancy.h"
#include "study/kernel_inventory.h"
#include "verdict/verdict_types.h"

// A study-level rule (docs/verdict.md): when every CUDA kernel's SASS is identical in both arms,
// the final verdict's reasons say so (a measured difference then does not come from kernel code),
// as CCCL's benchmark CI skips unchanged SASS. It changes no word: the measurement stands.
namespace kwb {

// True when it added the reason (once: a verdict that has it already is left as it is).
bool apply_kernel_code_rule(FinalVerdict& verdict, const KernelDiff& diff);

// The kernels whose resources differ, named with the verdict (the "why" beside the "how much"):
// "kernels: _Z6kernelPKfPfi: registers 18 -> 80 per thread, occupancy 100% -> 37.5% (limited by
// registers on NVIDIA H200, 256 threads per block assumed)", at most `limit` kernels, then a
// count. Occupancy only where `part` is known. nullopt when no kernel's resources differ.
std::optional<std::string> resource_diff_reason(const KernelDiff& diff, const GpuPart* part, std::size_t limit = 3);
// Adds it once; true when it did.
bool apply_resource_diff_rule(FinalVerdict& verdict, const KernelDiff& diff, const GpuPart* part);

} // namespace kwb
