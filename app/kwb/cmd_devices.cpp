// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands.h"
#include "hardware/device_sheet.h"
#include "hardware/peak_table.h"
#include "util/hardware_text.h"

#include <fmt/format.h>

namespace kwb::cli {
namespace {

void print_cpu(const nlohmann::json& d)
{
    fmt::print("CPU   {}\n", d.value("name", ""));
    fmt::print("      {} logical cores usable ({} online), {}, {} memory\n", d.value("logical_cores", 0),
        d.value("online_cores", 0), d.value("architecture", ""), format_bytes(d.value("memory_bytes", 0.0)));
    std::string caches;
    for (const auto& c : d.at("caches"))
        caches += fmt::format("{}{} {}", caches.empty() ? "" : ", ",
            cache_name(c.value("level", 0), c.value("type", "")), format_bytes(c.value("size_bytes", 0.0)));
    if (!caches.empty())
        fmt::print("      caches: {}\n", caches);
}

void print_gpu(const nlohmann::json& d)
{
    fmt::print("GPU {} {} ({})\n", d.value("index", 0), d.value("name", ""),
        sm_name(d.value("compute_capability", std::string())));
    fmt::print("      {} SMs at up to {} MHz; per SM: {} smem, {} registers, {} threads\n", d.value("sm_count", 0),
        d.value("sm_clock_mhz", 0), format_bytes(d.value("smem_per_sm_bytes", 0.0)), d.value("regs_per_sm", 0),
        d.value("max_threads_per_sm", 0));
    fmt::print("      L2 {}, memory {} on a {}-bit bus ({:.0f} GB/s theoretical)\n",
        format_bytes(d.value("l2_bytes", 0.0)), format_bytes(d.value("memory_bytes", 0.0)),
        d.value("memory_bus_bits", 0), d.value("theoretical_bandwidth_gbs", 0.0));
    const auto& cat = d.at("catalogue");
    if (cat.is_object())
        fmt::print("      peaks ({}): {} TFLOP/s bf16, {} GB/s HBM\n", cat.value("source", "catalogue"),
            cat.value("peak_bf16_tflops", 0.0), cat.value("peak_hbm_gbs", 0.0));
    const auto& measured = d.value("measured", nlohmann::json());
    if (!measured.is_object()) {
        fmt::print("      measured ceilings: none yet (kwb calibrate --device {})\n", d.value("index", 0));
        return;
    }
    // Datasheet beside measured, with the share of the datasheet: the engine's rows (hardware/peak_table.h),
    // the same the hardware page shows.
    for (const PeakRow& r : peak_rows(cat, measured)) {
        if (!r.measured)
            continue;
        const MeasuredCeiling& m = *r.measured;
        fmt::print("      measured {}: {:.4g} {} (median of {}, cv {:.2g}%){}\n", r.quantity, m.median, r.unit, m.n,
            m.cv_pct, r.pct_of_datasheet ? fmt::format(", {:.0f}% of the datasheet peak", *r.pct_of_datasheet) : "");
    }
    fmt::print("      (calibrated {})\n", measured.value("measured_at", ""));
}

int run(bool json)
{
    const DeviceSheet sheet = collect_devices();
    if (!sheet.gpu_unavailable_reason.empty())
        fmt::print(stderr, "kwb: no GPU: {}\n", sheet.gpu_unavailable_reason);
    if (json) {
        fmt::print("{}\n", nlohmann::json {{"devices", sheet.devices}}.dump(2));
        return kOk;
    }
    for (const auto& d : sheet.devices)
        d.at("kind") == "cpu" ? print_cpu(d) : print_gpu(d);
    return kOk;
}

} // namespace

void add_devices_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("devices",
        "The hardware sheet of every visible device (the CPU always; CUDA GPUs "
        "when the GPU backend loads)");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Print {\"devices\": [...]} as JSON");
    cmd->callback([&action, json] { action = [json] { return run(*json); }; });
}

} // namespace kwb::cli
