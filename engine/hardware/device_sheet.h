// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kwb {

// Every visible device: the CPU always, then each CUDA GPU when the GPU backend loads, each with
// its catalogue peaks where the catalogue knows the part.
struct DeviceSheet {
    nlohmann::json devices = nlohmann::json::array();
    std::string gpu_unavailable_reason; // one line; empty when GPUs were queried
};

DeviceSheet collect_devices();

// The bundled GPU catalogue (resources/gpus.json, compiled in) and the entry matching a device
// name, or null.
const nlohmann::json& gpu_catalogue();
nlohmann::json catalogue_entry_for(const std::string& device_name);

} // namespace kwb
