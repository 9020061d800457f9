// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/device_sheet.h"

#include "hardware/ceilings.h"
#include "hardware/cpu_info.h"
#include "hardware/gpu_backend.h"

#include <fmt/format.h>

namespace kwb {
namespace {

const char* const kCatalogueText =
#include "gpus_json.inc"
    ;

} // namespace

const nlohmann::json& gpu_catalogue()
{
    static const nlohmann::json catalogue = nlohmann::json::parse(kCatalogueText);
    return catalogue;
}

nlohmann::json catalogue_entry_for(const std::string& device_name)
{
    for (const auto& entry : gpu_catalogue().at("gpus"))
        if (device_name.find(entry.at("match").get<std::string>()) != std::string::npos)
            return entry;
    return nullptr;
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
