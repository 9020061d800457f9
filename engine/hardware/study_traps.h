// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/hardware_traps.h"
#include "study/study.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

// The hardware traps of a study's chosen configurations: every arm whose block needs are known
// (workloads/descriptions/block_needs.h for the built-in workloads), checked against one GPU's limits
// (hardware/hardware_traps.h). The hardware page and its Record ask this.
namespace kwb {

using BlockNeedsOf = std::function<std::optional<BlockNeeds>(const Experiment&, const Arm&)>;

struct ArmBlock {
    std::string who; // "ab-1 baseline"
    BlockNeeds needs;
};

// One entry per distinct configuration, named by the first arm that uses it (the baseline that
// every grid cell shares is listed once).
std::vector<ArmBlock> study_block_needs(const Study& study, const BlockNeedsOf& needs_of);

struct StudyTraps {
    std::vector<std::string> occupancy; // one line per configuration (occupancy_line)
    std::vector<TrapWarning> warnings; // the architecture's traps, then each configuration's
};

StudyTraps study_traps(const Study& study, const BlockNeedsOf& needs_of, const GpuLimits& limits);

} // namespace kwb
