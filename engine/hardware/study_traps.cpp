// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/study_traps.h"

#include <algorithm>

namespace kwb {

std::vector<ArmBlock> study_block_needs(const Study& study, const WorkloadRegistry& registry)
{
    std::vector<ArmBlock> out;
    for (const Experiment& e : study.experiments) {
        if (e.backend != "cuda" && e.backend != "auto")
            continue;
        const Workload* w = registry.find(e.workload);
        if (!w || !has_backend(*w, Backend::Cuda))
            continue;
        for (const Arm& arm : e.arms) {
            try {
                const auto params = resolve_params(*w, arm.params, Backend::Cuda);
                if (const auto needs = w->cuda_block_needs(params)) {
                    const std::string who = e.id + " " + arm.name;
                    // Arms that share a configuration (the baseline of every grid cell) once.
                    if (std::none_of(out.begin(), out.end(), [&](const ArmBlock& b) {
                            return b.needs.config == needs->config && b.who.starts_with(e.id + " ");
                        }))
                        out.push_back({who, *needs});
                }
            } catch (const WorkloadError&) {
                // Parameters another backend owns (a cpu-only arm): nothing to check on a GPU.
            }
        }
    }
    return out;
}

StudyTraps study_traps(const Study& study, const WorkloadRegistry& registry, const GpuLimits& limits)
{
    StudyTraps t;
    t.warnings = architecture_traps(limits);
    for (const ArmBlock& b : study_block_needs(study, registry)) {
        t.occupancy.push_back(occupancy_line(b.who, b.needs, limits));
        for (auto& w : config_traps(b.who, b.needs, limits))
            t.warnings.push_back(std::move(w));
    }
    return t;
}

} // namespace kwb
