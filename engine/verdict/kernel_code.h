// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/kernel_inventory.h"
#include "verdict/verdict_types.h"

// A study-level rule (docs/verdict.md): when every CUDA kernel's SASS is identical in both arms,
// the final verdict's reasons say so (a measured difference then does not come from kernel code),
// as CCCL's benchmark CI skips unchanged SASS. It changes no word: the measurement stands.
namespace kwb {

// True when it added the reason (once: a verdict that has it already is left as it is).
bool apply_kernel_code_rule(FinalVerdict& verdict, const KernelDiff& diff);

} // namespace kwb
