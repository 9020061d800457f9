// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/sampler_set.h"

#include "sampling/cupti_source.h"
#include "sampling/nvml_source.h"
#include "sampling/procfs_sampler.h"
#include "sampling/queued_sampler.h"

#include <fmt/format.h>

namespace kwb {

std::vector<Sampler*> SamplerSet::pointers() const
{
    std::vector<Sampler*> out;
    for (const auto& s : owned)
        out.push_back(s.get());
    return out;
}

SamplerSet choose_samplers(const SamplerChoice& choice)
{
    SamplerSet set;
    auto procfs = std::make_unique<ProcfsSampler>();
    if (const auto why = procfs->unavailable_reason(); !why.empty())
        set.limitations.push_back(fmt::format("no CPU sampler: {}", why));
    set.owned.push_back(std::move(procfs));
    if (!choice.gpu)
        return set;

    auto nvml = std::make_unique<QueuedSampler>(std::make_unique<NvmlSource>(choice.gpu_uuid));
    if (const auto why = nvml->unavailable_reason(); !why.empty())
        set.limitations.push_back(
            fmt::format("no NVML: clocks, temperature, power and other GPU processes not recorded ({})", why));
    else
        set.nvml = nvml.get();
    set.owned.push_back(std::move(nvml));

    if (!choice.cupti) {
        set.limitations.push_back("no CUPTI PM sampling: turned off (--no-cupti)");
        return set;
    }
    auto cupti = std::make_unique<QueuedSampler>(
        std::make_unique<CuptiSource>(choice.api, choice.device, choice.cupti_interval_s, choice.api_reason));
    if (const auto why = cupti->unavailable_reason(); !why.empty())
        set.limitations.push_back(fmt::format(
            "no CUPTI PM sampling: occupancy, DRAM, SM and tensor lanes not recorded; GPU timing unaffected ({})",
            why));
    else
        set.cupti = cupti.get();
    set.owned.push_back(std::move(cupti));
    return set;
}

} // namespace kwb
