// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/speed_of_light_input.h"

#include "hardware/ceilings.h"
#include "hardware/cpu_info.h"
#include "hardware/gpu_catalogue.h"
#include "hardware/measured_ceilings.h"
#include "study/arm_roles.h"
#include "workloads/command/command_spec.h"
#include "workloads/worker/worker_workload.h"

#include <algorithm>
#include <cmath>

namespace kwb {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The entry of the study's hardware snapshot for this GPU (kwb devices --json shape), or null.
const nlohmann::json* snapshot_entry(const Study& study, const DeviceIdentity& device)
{
    for (const auto& d : study.hardware.devices)
        if (d.is_object() && !device.uuid.empty() && d.value("uuid", std::string()) == device.uuid)
            return &d;
    return nullptr;
}

MeasuredCeilings gpu_ceilings(const Study& study, const DeviceIdentity& device)
{
    auto here = measured_ceilings(load_ceilings(device.uuid));
    if (!here.empty())
        return here;
    if (const auto* d = snapshot_entry(study, device); d && d->contains("measured"))
        return measured_ceilings(d->at("measured"));
    return {};
}

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

void add_measured_bandwidth(SpeedOfLightRoofs& roofs, const MeasuredCeilings& m)
{
    // The larger of the read-only and copy ceilings: a read-heavy kernel reaches the first.
    if (m.read_gbs && (!m.copy_gbs || *m.read_gbs >= *m.copy_gbs))
        roofs.dram_gbs = Roof {*m.read_gbs, "read-only ceiling"};
    else if (m.copy_gbs)
        roofs.dram_gbs = Roof {*m.copy_gbs, "copy ceiling"};
    if (m.l2_read_gbs)
        roofs.l2_gbs = Roof {*m.l2_read_gbs, "L2 read ceiling"};
}

std::optional<Roof> compute_roof(const GpuPart& part, const std::string& workload)
{
    const bool dtype_unknown = workload == worker::kWorkerWorkload || workload == command::kCommandWorkload;
    if (dtype_unknown) {
        if (part.peak_fp8_tflops)
            return Roof {*part.peak_fp8_tflops, "fp8 datasheet peak (dense; the arm's dtype is not known)"};
        if (part.peak_bf16_tflops)
            return Roof {*part.peak_bf16_tflops, "bf16 datasheet peak (dense; the arm's dtype is not known)"};
        return std::nullopt;
    }
    if (part.peak_bf16_tflops)
        return Roof {*part.peak_bf16_tflops, "bf16 datasheet peak (dense)"};
    return std::nullopt;
}

SpeedOfLightArm arm_reps(const Experiment& e, const std::string& arm)
{
    SpeedOfLightArm out {arm, {}};
    const auto positive = [](const Sample& s, const char* key) -> std::optional<double> {
        const auto it = s.metrics.find(key);
        if (it == s.metrics.end() || !std::isfinite(it->second) || it->second <= 0)
            return std::nullopt;
        return it->second;
    };
    for (const auto& s : e.samples) {
        if (s.arm != arm || s.warmup || s.discarded || s.failed)
            continue;
        SpeedOfLightRep r {positive(s, "time_ms"), positive(s, "gbs"), positive(s, "tflops")};
        if (!r.tflops)
            if (const auto g = positive(s, "gflops"))
                r.tflops = *g / 1000;
        out.reps.push_back(r);
    }
    return out;
}

} // namespace

SpeedOfLightRoofs speed_of_light_roofs(const Study& study, const Experiment& e)
{
    SpeedOfLightRoofs roofs;
    const DeviceIdentity& device = e.device;
    roofs.device = device.model;
    if (device.kind == "cuda") {
        const GpuPart* part = find_gpu_part(device.model);
        add_measured_bandwidth(roofs, gpu_ceilings(study, device));
        if (!roofs.dram_gbs && part && part->peak_hbm_gbs > 0)
            roofs.dram_gbs = Roof {part->peak_hbm_gbs, "datasheet HBM peak"};
        const auto* d = snapshot_entry(study, device);
        const double l2 = d && d->contains("l2_bytes") && d->at("l2_bytes").is_number()
            ? d->at("l2_bytes").get<double>()
            : (part ? part->l2_mib * kMiB : 0);
        roofs.cache_bytes = l2;
        if (part)
            roofs.compute_tflops = compute_roof(*part, e.workload);
    } else if (device.kind == "cpu") {
        add_measured_bandwidth(roofs, measured_ceilings(load_ceilings(cpu_ceilings_key(device.model))));
        roofs.cache_name = "caches";
        const CpuInfo cpu = query_cpu();
        roofs.cache_bytes = cpu.model == device.model ? cpu_cache_bytes(cpu) : 0;
    }
    // Without the cache's size, the bytes that must cross DRAM are unknown: no DRAM roof.
    if (roofs.cache_bytes <= 0)
        roofs.dram_gbs.reset();
    return roofs;
}

SpeedOfLightInput speed_of_light_input(const Study& study, const Experiment& e)
{
    SpeedOfLightInput in;
    in.roofs = speed_of_light_roofs(study, e);
    const AbArms arms = ab_arms(e);
    if (arms.baseline)
        in.arms.push_back(arm_reps(e, arms.baseline->name));
    if (arms.treatment)
        in.arms.push_back(arm_reps(e, arms.treatment->name));
    return in;
}

} // namespace kwb
