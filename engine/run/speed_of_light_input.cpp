// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/speed_of_light_input.h"

#include "hardware/ceilings.h"
#include "hardware/cpu_info.h"
#include "study/arm_roles.h"
#include "verdict/speed_of_light_roofs.h"

#include <algorithm>

namespace kwb {
namespace {

// Everything the CPU's caches can hold at once: each level's size times its instances.
double cpu_cache_bytes(const CpuInfo& cpu)
{
    double total = 0;
    for (const auto& c : cpu.caches) {
        if (c.type == "Instruction")
            continue;
        const int instances = std::max(1, cpu.online_cores / std::max(1, c.shared_by_cpus));
        total += static_cast<double>(c.size_bytes) * instances;
    }
    return total;
}

// What this machine's files and CPU add to the study's snapshot.
LocalCeilings local_ceilings(const DeviceIdentity& device)
{
    LocalCeilings here;
    if (device.kind == "cuda") {
        here.gpu = measured_ceilings(load_ceilings(device.uuid));
    } else if (device.kind == "cpu") {
        here.cpu = measured_ceilings(load_ceilings(cpu_ceilings_key(device.model)));
        const CpuInfo cpu = query_cpu();
        if (cpu.model == device.model)
            here.cpu_cache_bytes = cpu_cache_bytes(cpu);
    }
    return here;
}

} // namespace

SpeedOfLightRoofs speed_of_light_roofs(const Study& study, const Experiment& e)
{
    return device_roofs(study, e, local_ceilings(e.device));
}

SpeedOfLightInput speed_of_light_input(const Study& study, const Experiment& e)
{
    SpeedOfLightInput in;
    in.roofs = speed_of_light_roofs(study, e);
    const AbArms arms = ab_arms(e);
    if (arms.baseline)
        in.arms.push_back(speed_of_light_arm(e, arms.baseline->name));
    if (arms.treatment)
        in.arms.push_back(speed_of_light_arm(e, arms.treatment->name));
    return in;
}

} // namespace kwb
