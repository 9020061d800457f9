// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/visible_gpu.h"

#include "hardware/gpu_backend.h"
#include "hardware/nvml.h"
#include "study/device_identity.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kwb {
namespace {

std::optional<DeviceIdentity> plugin_gpu(int index)
{
    const auto* api = GpuBackend::instance().api();
    if (!api || !api->devices_json)
        return std::nullopt;
    const auto devices = nlohmann::json::parse(api->devices_json(), nullptr, false);
    if (devices.is_array())
        for (const auto& d : devices)
            if (d.is_object() && d.value("index", -1) == index) {
                DeviceIdentity id = identity_from_sheet(d);
                // One spelling of the driver in every identity, embedded, command or worker arm:
                // the release as nvidia-smi names it (NVML), not the CUDA driver API's 13000.
                if (const std::string release = nvml::Library::instance().driver_version(); !release.empty())
                    id.driver = release;
                return id;
            }
    return std::nullopt;
}

std::optional<DeviceIdentity> nvml_gpu(int index)
{
    const auto& nvml = nvml::Library::instance();
    if (const auto device = nvml.device_by_index(index))
        return DeviceIdentity {"cuda", device->name(), device->uuid(), index, nvml.driver_version()};
    return std::nullopt;
}

} // namespace

std::optional<DeviceIdentity> visible_gpu(int index)
{
    if (index < 0)
        return std::nullopt;
    if (auto d = plugin_gpu(index))
        return d;
    return nvml_gpu(index);
}

std::string no_visible_gpu_reason(int index)
{
    if (visible_gpu(index))
        return {};
    const auto& backend = GpuBackend::instance();
    const auto& nvml = nvml::Library::instance();
    const std::string plugin = backend.api() ? "no such device" : backend.unavailable_reason();
    const std::string by_nvml
        = nvml.available() ? fmt::format("{} devices", nvml.device_count()) : nvml.unavailable_reason();
    return fmt::format("no CUDA device {} here (the GPU backend: {}; NVML: {})", index, plugin, by_nvml);
}

} // namespace kwb
