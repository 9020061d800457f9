// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/study_traps.h"

#include <algorithm>

namespace kwb {

std::vector<ArmBlock> study_block_needs(const Study& study, const BlockNeedsOf& needs_of)
{
    std::vector<ArmBlock> out;
    for (const Experiment& e : study.experiments)
        for (const Arm& arm : e.arms) {
            const auto needs = needs_of(e, arm);
            if (!needs)
                continue;
            const bool seen = std::any_of(
                out.begin(), out.end(), [&](const ArmBlock& b) { return b.needs.config == needs->config; });
            if (!seen)
                out.push_back({e.id + " " + arm.name, *needs});
        }
    return out;
}

StudyTraps study_traps(const Study& study, const BlockNeedsOf& needs_of, const GpuLimits& limits)
{
    StudyTraps t;
    t.warnings = architecture_traps(limits);
    for (const ArmBlock& b : study_block_needs(study, needs_of)) {
        t.occupancy.push_back(occupancy_line(b.who, b.needs, limits));
        for (auto& w : config_traps(b.who, b.needs, limits))
            t.warnings.push_back(std::move(w));
    }
    return t;
}

} // namespace kwb
