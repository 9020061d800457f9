// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/hardware_traps.h"
#include "study/study.h"
#include "workloads/workload.h"

#include <string>
#include <vector>

// The hardware traps of a study's chosen configurations: every arm of every experiment that may
// run on a GPU (backend cuda or auto) whose workload can say what one block needs, checked
// against one GPU's limits (hardware/hardware_traps.h). The hardware page and Record ask this.
namespace kwb {

struct ArmBlock {
    std::string who; // "ab-1 baseline"
    BlockNeeds needs;
};

std::vector<ArmBlock> study_block_needs(const Study& study, const WorkloadRegistry& registry);

struct StudyTraps {
    std::vector<std::string> occupancy; // one line per configuration (occupancy_line)
    std::vector<TrapWarning> warnings; // the architecture's traps, then each configuration's
};

StudyTraps study_traps(const Study& study, const WorkloadRegistry& registry, const GpuLimits& limits);

} // namespace kwb
