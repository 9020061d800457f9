// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/kernel_code.h"

#include <algorithm>

namespace kwb {

bool apply_kernel_code_rule(FinalVerdict& verdict, const KernelDiff& diff)
{
    const auto reason = identical_sass_reason(diff);
    if (!reason || std::find(verdict.reasons.begin(), verdict.reasons.end(), *reason) != verdict.reasons.end())
        return false;
    verdict.reasons.push_back(*reason);
    return true;
}

} // namespace kwb
