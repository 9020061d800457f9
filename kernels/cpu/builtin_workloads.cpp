// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"

namespace kwb {

const WorkloadRegistry& builtin_workloads()
{
    static const WorkloadRegistry registry = [] {
        WorkloadRegistry r;
        return r;
    }();
    return registry;
}

} // namespace kwb
