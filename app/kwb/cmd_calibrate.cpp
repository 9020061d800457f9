// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb calibrate [--device N]`: measures the device's copy bandwidth and bf16 GEMM rate
// (cuBLASLt) with n and spread, through the GPU backend plugin, and stores them per device so
// `kwb devices` and the hardware page show them beside the datasheet peaks.
#include "commands.h"
#include "hardware/ceilings.h"
#include "hardware/gpu_backend.h"
#include "util/atomic_file.h"

#include <fmt/format.h>

namespace kwb::cli {
namespace {

struct CalibrateOptions {
    int device = 0;
    bool json = false;
};

int run(const CalibrateOptions& o)
{
    check_regular_or_absent(ceilings_path()); // before seconds of measuring: where they go must take a file
    const auto* api = GpuBackend::instance().api();
    if (!api || !api->calibrate)
        throw std::runtime_error(fmt::format("kwb calibrate needs the GPU backend: {}",
            api ? "the plugin has no calibration" : GpuBackend::instance().unavailable_reason()));
    const auto devices = nlohmann::json::parse(api->devices_json(), nullptr, false);
    if (!devices.is_array())
        throw std::runtime_error(fmt::format(
            "no GPU: {}", devices.is_object() ? devices.value("error", std::string("unknown")) : "unreadable"));
    const nlohmann::json* device = nullptr;
    for (const auto& d : devices)
        if (d.value("index", -1) == o.device)
            device = &d;
    if (!device)
        throw BadInput(fmt::format("--device: there is no CUDA device {} (kwb devices lists them)", o.device));
    fmt::print(stderr, "kwb: calibrating {} (device {}): copy bandwidth and bf16 GEMM...\n", device->value("name", ""),
        o.device);
    const auto measured = nlohmann::json::parse(api->calibrate(o.device), nullptr, false);
    if (!measured.is_object())
        throw std::runtime_error("the GPU backend's calibration reply is not JSON");
    if (measured.contains("error"))
        throw std::runtime_error(fmt::format("calibration failed: {}", measured.value("error", std::string())));
    store_ceilings(device->value("uuid", std::string()), device->value("name", std::string()), measured);
    if (o.json) {
        fmt::print("{}\n", measured.dump(2));
    } else {
        for (const auto& [key, m] : measured.items())
            if (m.is_object() && m.contains("median"))
                fmt::print("{}: {:.4g} {} (median of {}, min {:.4g}, max {:.4g}, cv {:.2g}%)\n", key,
                    m.value("median", 0.0), m.value("unit", ""), m.value("n", 0), m.value("min", 0.0),
                    m.value("max", 0.0), m.value("cv_pct", 0.0));
        if (measured.contains("cublaslt") && measured["cublaslt"].is_string())
            fmt::print(stderr, "kwb: no GEMM ceiling: {}\n", measured["cublaslt"].get<std::string>());
    }
    fmt::print(stderr, "kwb: stored in {}\n", ceilings_path().string());
    return kOk;
}

} // namespace

void add_calibrate_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("calibrate", "Measure a GPU's copy bandwidth and bf16 GEMM ceilings and store them");
    auto o = std::make_shared<CalibrateOptions>();
    cmd->add_option("--device", o->device, "The CUDA device index (default 0)");
    cmd->add_flag("--json", o->json, "Print the measurement as JSON");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
