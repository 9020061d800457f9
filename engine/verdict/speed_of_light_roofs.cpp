// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/speed_of_light_roofs.h"

#include "hardware/gpu_catalogue.h"
#include "workloads/command/command_spec.h"
#include "workloads/worker/worker_check.h"

#include <algorithm>
#include <cmath>

namespace kwb {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The entry of the study's hardware snapshot for this GPU (kwb devices --json shape), or null.
const nlohmann::json* snapshot_gpu(const Study& study, const DeviceIdentity& device)
{
    for (const auto& d : study.hardware.devices)
        if (d.is_object() && !device.uuid.empty() && d.value("uuid", std::string()) == device.uuid)
            return &d;
    return nullptr;
}

// Everything the snapshot's CPU of this model can hold in its caches at once: each data level's
// size times its instances (the same sum run/speed_of_light_input.cpp takes over this machine's).
double snapshot_cpu_cache_bytes(const Study& study, const std::string& model)
{
    for (const auto& d : study.hardware.devices) {
        if (!d.is_object() || d.value("kind", std::string()) != "cpu" || d.value("name", std::string()) != model
            || !d.contains("caches") || !d.at("caches").is_array())
            continue;
        const int cores = d.value("online_cores", 1);
        double total = 0;
        for (const auto& c : d.at("caches")) {
            if (!c.is_object() || c.value("type", std::string()) == "Instruction")
                continue;
            const int instances = std::max(1, cores / std::max(1, c.value("shared_by_cpus", 1)));
            total += c.value("size_bytes", 0.0) * instances;
        }
        return total;
    }
    return 0;
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

} // namespace

SpeedOfLightRoofs device_roofs(const Study& study, const Experiment& e, const LocalCeilings& here)
{
    SpeedOfLightRoofs roofs;
    const DeviceIdentity& device = e.device;
    roofs.device = device.model;
    if (device.kind == "cuda") {
        const GpuPart* part = find_gpu_part(device.model);
        const auto* d = snapshot_gpu(study, device);
        if (!here.gpu.empty())
            add_measured_bandwidth(roofs, here.gpu);
        else if (d && d->contains("measured"))
            add_measured_bandwidth(roofs, measured_ceilings(d->at("measured")));
        if (!roofs.dram_gbs && part && part->peak_hbm_gbs > 0)
            roofs.dram_gbs = Roof {part->peak_hbm_gbs, "datasheet HBM peak"};
        roofs.cache_bytes = d && d->contains("l2_bytes") && d->at("l2_bytes").is_number()
            ? d->at("l2_bytes").get<double>()
            : (part ? part->l2_mib * kMiB : 0);
        if (part)
            roofs.compute_tflops = compute_roof(*part, e.workload);
    } else if (device.kind == "cpu") {
        add_measured_bandwidth(roofs, here.cpu);
        roofs.cache_name = "caches";
        roofs.cache_bytes
            = here.cpu_cache_bytes > 0 ? here.cpu_cache_bytes : snapshot_cpu_cache_bytes(study, device.model);
    }
    // Without the cache's size, the bytes that must cross DRAM are unknown: no DRAM roof.
    if (roofs.cache_bytes <= 0)
        roofs.dram_gbs.reset();
    return roofs;
}

SpeedOfLightArm speed_of_light_arm(const Experiment& e, const std::string& arm)
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

} // namespace kwb
