// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/progress_line.h"

namespace kwb::progress {

std::string line(const nlohmann::json& event)
{
    using nlohmann::json;
    std::string text = "{\"type\":" + event.at("type").dump() + ",\"v\":" + std::to_string(kStreamVersion);
    for (const auto& [key, value] : event.items())
        if (key != "type" && key != "v")
            text += "," + json(key).dump() + ":" + value.dump(-1, ' ', false, json::error_handler_t::replace);
    return text + "}\n";
}

nlohmann::json end_event(const std::string& status, int exit_code)
{
    return {{"type", "end"}, {"status", status}, {"exit_code", exit_code}};
}

} // namespace kwb::progress
