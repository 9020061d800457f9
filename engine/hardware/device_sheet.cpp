// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/device_sheet.h"

#include "hardware/ceilings.h"
#include "hardware/cpu_info.h"
#include "hardware/gpu_backend.h"
#include "hardware/gpu_catalogue.h"

#include <fmt/format.h>

namespace kwb {

const nlohmann::json& gpu_catalogue()
{
    return gpu_catalogue_document();
}

nlohmann::json catalogue_entry_for(const std::string& device_name)
{
    const GpuPart* part = find_gpu_part(device_name);
    return part ? part->to_json() : nlohmann::json(nullptr);
}

DeviceSheet collect_devices()
{
    DeviceSheet sheet;
    sheet.devices.push_back(cpu_to_json(query_cpu()));
    const auto& backend = GpuBackend::instance();
    if (!backend.api()) {
        sheet.gpu_unavailable_reason = backend.unavailable_reason();
        return sheet;
    }
    nlohmann::json gpus;
    try {
        gpus = nlohmann::json::parse(backend.api()->devices_json());
    } catch (const nlohmann::json::exception& e) {
        sheet.gpu_unavailable_reason = fmt::format("GPU backend returned unreadable device data: {}", e.what());
        return sheet;
    }
    if (gpus.is_object()) {
        sheet.gpu_unavailable_reason = gpus.value("error", std::string("GPU backend reported no devices"));
        return sheet;
    }
    for (auto& gpu : gpus) {
        gpu["catalogue"] = catalogue_entry_for(gpu.value("name", std::string()));
        gpu["measured"] = load_ceilings(gpu.value("uuid", std::string()));
        sheet.devices.push_back(std::move(gpu));
    }
    return sheet;
}

} // namespace kwb
