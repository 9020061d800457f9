// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/machine_load.h"

#include "stats/percentile.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace kwb {
namespace {

const SamplerLane* lane(const Experiment& e, const std::string& name)
{
    for (const auto& l : e.lanes)
        if (l.name == name && !l.values.empty())
            return &l;
    return nullptr;
}

std::string pct(double x)
{
    return fmt::format("{:.0f}%", x);
}

} // namespace

std::optional<double> MachineLoad::clock_drop_pct() const
{
    if (!clock_high_mhz || !clock_low_mhz || !(*clock_high_mhz > 0))
        return std::nullopt;
    return 100.0 * (1.0 - *clock_low_mhz / *clock_high_mhz);
}

MachineLoad machine_load(const Experiment& e)
{
    MachineLoad m;
    if (const auto* other = lane(e, "other_cpu")) {
        m.other_cpu_pct = std::accumulate(other->values.begin(), other->values.end(), 0.0)
            / static_cast<double>(other->values.size());
        m.other_cpu_peak_pct = *std::max_element(other->values.begin(), other->values.end());
    }
    if (const auto* thread = lane(e, "bench_thread_cpu"); thread && e.backend == "cpu") {
        m.thread_p10_pct = stats::percentile(thread->values, 10);
        m.thread_p90_pct = stats::percentile(thread->values, 90);
    }
    std::vector<double> clocks;
    for (const auto& s : e.samples)
        if (!s.warmup && !s.discarded && s.clock_mhz && *s.clock_mhz > 0)
            clocks.push_back(*s.clock_mhz);
    if (clocks.empty())
        if (const auto* sm = lane(e, "nvml_sm_clock"))
            for (double c : sm->values)
                if (c > 0)
                    clocks.push_back(c);
    if (!clocks.empty()) {
        m.clock_high_mhz = *std::max_element(clocks.begin(), clocks.end());
        m.clock_low_mhz = *std::min_element(clocks.begin(), clocks.end());
    }
    return m;
}

std::optional<bool> no_heavy_process(const MachineLoad& load, std::string& how)
{
    if (!load.other_cpu_pct) {
        how = "not recorded (no CPU sampler lane): check it yourself";
        return std::nullopt;
    }
    how = fmt::format("other processes took {} of the machine's CPU on average (peak {}) while it ran; heavy "
                      "from {}",
        pct(*load.other_cpu_pct), pct(load.other_cpu_peak_pct.value_or(*load.other_cpu_pct)), pct(kHeavyOtherCpuPct));
    return !load.heavy_other_processes();
}

std::vector<std::string> busy_machine_reasons(const MachineLoad& load)
{
    std::vector<std::string> seen;
    if (load.heavy_other_processes())
        seen.push_back(fmt::format("other processes took {} of the CPU (peak {})", pct(*load.other_cpu_pct),
            pct(load.other_cpu_peak_pct.value_or(*load.other_cpu_pct))));
    if (load.thread_starved())
        seen.push_back(fmt::format("the benchmark thread got {:.0f}-{:.0f}% of a core", *load.thread_p10_pct,
            load.thread_p90_pct.value_or(*load.thread_p10_pct)));
    if (load.clock_fell())
        seen.push_back(fmt::format("the clock fell by {} ({} to {} MHz)", pct(*load.clock_drop_pct()),
            wording::num(*load.clock_high_mhz), wording::num(*load.clock_low_mhz)));
    std::string list;
    for (const auto& s : seen)
        list += (list.empty() ? "" : "; ") + s;
    if (!seen.empty())
        return {fmt::format("unstable on a busy machine, as measured while it ran: {}; rerun it on a quiet one", list)};
    std::vector<std::string> normal;
    if (load.other_cpu_pct)
        normal.push_back(fmt::format("other processes took {} of the CPU", pct(*load.other_cpu_pct)));
    if (load.thread_p10_pct)
        normal.push_back(fmt::format("the benchmark thread got {:.0f}-{:.0f}% of a core", *load.thread_p10_pct,
            load.thread_p90_pct.value_or(*load.thread_p10_pct)));
    if (load.clock_drop_pct())
        normal.push_back(fmt::format("the clock varied by {}", pct(*load.clock_drop_pct())));
    if (normal.empty())
        return {};
    std::string text;
    for (const auto& s : normal)
        text += (text.empty() ? "" : ", ") + s;
    return {fmt::format("the machine looked quiet while it ran ({}): the instability is the workload's own", text)};
}

} // namespace kwb
