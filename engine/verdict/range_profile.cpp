// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/range_profile.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {
namespace {

constexpr const char* kSectors = "l2_sectors";
constexpr const char* kTime = "kernel_ms";

const RangeMetricSpec* spec_of(const std::string& key)
{
    for (const auto& s : range_metrics())
        if (s.key == key)
            return &s;
    return nullptr;
}

double value_or(const KernelRange& k, const std::string& key, double fallback)
{
    const auto it = k.values.find(key);
    return it == k.values.end() ? fallback : it->second;
}

// The launch's value of one metric over `kernels` (all of one name, or all), or none.
std::optional<double> aggregate(const std::vector<const KernelRange*>& kernels, const RangeMetricSpec& spec)
{
    double sum = 0, weight = 0;
    const KernelRange* longest = nullptr;
    bool any = false;
    for (const KernelRange* k : kernels) {
        const auto it = k->values.find(spec.key);
        if (it == k->values.end())
            continue;
        any = true;
        switch (spec.aggregate) {
        case RangeAggregate::Sum:
            sum += it->second;
            break;
        case RangeAggregate::SectorWeighted:
        case RangeAggregate::TimeWeighted: {
            const double w = value_or(*k, spec.aggregate == RangeAggregate::SectorWeighted ? kSectors : kTime, 0);
            sum += w * it->second;
            weight += w;
            break;
        }
        case RangeAggregate::LongestKernel:
            if (!longest || value_or(*k, kTime, 0) > value_or(*longest, kTime, 0))
                longest = k;
            break;
        }
    }
    if (!any)
        return std::nullopt;
    switch (spec.aggregate) {
    case RangeAggregate::Sum:
        return sum;
    case RangeAggregate::LongestKernel:
        return longest->values.at(spec.key);
    default:
        // No weight (no sectors looked up, no time measured): no value rather than a 0/0.
        return weight > 0 ? std::optional<double>(sum / weight) : std::nullopt;
    }
}

} // namespace

const std::vector<RangeMetricSpec>& range_metrics()
{
    static const std::vector<RangeMetricSpec> specs {
        {"kernel_ms", "gpu__time_duration.sum", "ms", RangeAggregate::Sum, 1e-6,
            "kernel time under the profiler (replayed: not the timed time)"},
        {"dram_read_bytes", "dram__bytes_read.sum", "B", RangeAggregate::Sum, 1, "bytes read from DRAM"},
        {"dram_write_bytes", "dram__bytes_write.sum", "B", RangeAggregate::Sum, 1, "bytes written to DRAM"},
        {"l2_sectors", "lts__t_sectors.sum", "sectors", RangeAggregate::Sum, 1, "L2 sectors looked up (32 B each)"},
        {"l2_hit_pct", "lts__t_sector_hit_rate.pct", "%", RangeAggregate::SectorWeighted, 1,
            "L2 sector lookups that hit"},
        {"occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", RangeAggregate::TimeWeighted, 1,
            "achieved occupancy: warps in flight over the SM's maximum, while active"},
        {"registers_per_thread", "", "registers", RangeAggregate::LongestKernel, 1,
            "registers per thread (CUPTI Activity launch record)"},
        {"smem_per_block_bytes", "", "B", RangeAggregate::LongestKernel, 1,
            "shared memory per block, static + dynamic (CUPTI Activity launch record)"},
    };
    return specs;
}

std::vector<std::string> range_profiler_cupti_names()
{
    std::vector<std::string> names;
    for (const auto& s : range_metrics())
        if (!s.cupti.empty())
            names.push_back(s.cupti);
    return names;
}

RangeProfileArm range_profile_from_reply(std::string arm, const nlohmann::json& reply)
{
    RangeProfileArm a;
    a.arm = std::move(arm);
    if (!reply.is_object()) {
        a.unavailable = "the GPU backend's range_profile reply is not a JSON object";
        return a;
    }
    if (const auto it = reply.find("error"); it != reply.end()) {
        a.unavailable = it->is_string() ? it->get<std::string>() : "the range profiler failed";
        return a;
    }
    a.passes = reply.value("passes", 0);
    for (const auto& n : reply.value("notes", nlohmann::json::array()))
        if (n.is_string())
            a.notes.push_back(n.get<std::string>());
    const auto metrics = reply.value("metrics", nlohmann::json::array());
    const auto kernels = reply.value("kernels", nlohmann::json::array());
    const auto ranges = reply.value("ranges", nlohmann::json::array());
    const int launches = reply.value("launches", 0);
    const std::size_t per_launch = kernels.size();
    if (launches < 1 || per_launch == 0 || ranges.size() != per_launch * static_cast<std::size_t>(launches)) {
        a.unavailable = fmt::format("the range profiler gave {} ranges for {} launches of {} kernels each; they "
                                    "cannot be matched to kernels",
            ranges.size(), launches, per_launch);
        return a;
    }
    // CUPTI name -> table key and scale.
    std::vector<const RangeMetricSpec*> columns;
    for (const auto& m : metrics) {
        const RangeMetricSpec* found = nullptr;
        for (const auto& s : range_metrics())
            if (m.is_string() && s.cupti == m.get<std::string>())
                found = &s;
        columns.push_back(found);
    }
    a.launches.resize(static_cast<std::size_t>(launches));
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        const auto& kernel = kernels[r % per_launch];
        KernelRange k;
        k.kernel = kernel.value("name", std::string("?"));
        if (const auto regs = kernel.find("registers_per_thread"); regs != kernel.end() && regs->is_number())
            k.values["registers_per_thread"] = regs->get<double>();
        if (kernel.contains("static_smem_bytes") || kernel.contains("dynamic_smem_bytes"))
            k.values["smem_per_block_bytes"]
                = kernel.value("static_smem_bytes", 0.0) + kernel.value("dynamic_smem_bytes", 0.0);
        const auto& values = ranges[r];
        for (std::size_t c = 0; c < columns.size() && values.is_array() && c < values.size(); ++c)
            if (columns[c] && values[c].is_number())
                k.values[columns[c]->key] = values[c].get<double>() * columns[c]->scale;
        a.launches[r / per_launch].push_back(std::move(k));
    }
    return a;
}

std::map<std::string, std::vector<double>> per_launch_values(const RangeProfileArm& arm, const std::string& kernel)
{
    std::map<std::string, std::vector<double>> out;
    for (const auto& launch : arm.launches) {
        std::vector<const KernelRange*> chosen;
        for (const auto& k : launch)
            if (kernel.empty() || k.kernel == kernel)
                chosen.push_back(&k);
        if (chosen.empty())
            continue;
        for (const auto& spec : range_metrics())
            if (const auto v = aggregate(chosen, spec))
                out[spec.key].push_back(*v);
    }
    return out;
}

std::vector<std::string> kernel_names(const RangeProfileArm& arm)
{
    std::vector<std::string> names;
    for (const auto& launch : arm.launches)
        for (const auto& k : launch)
            if (std::find(names.begin(), names.end(), k.kernel) == names.end())
                names.push_back(k.kernel);
    return names;
}

std::map<std::string, ArmLaneStats> per_launch_stats(const RangeProfileArm& arm, const std::string& kernel)
{
    std::map<std::string, ArmLaneStats> out;
    for (const auto& [key, values] : per_launch_values(arm, kernel))
        if (spec_of(key))
            out[key] = repetition_stats(values);
    return out;
}

} // namespace kwb
