// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/device_identity.h"

#include "util/json_reader.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace kwb {

bool same_device(const DeviceIdentity& recorded, const DeviceIdentity& current)
{
    if (recorded.empty())
        return true;
    return recorded.kind == current.kind && recorded.model == current.model;
}

bool may_continue_on(const Experiment& e, const DeviceIdentity& current)
{
    const bool has_samples = std::any_of(e.samples.begin(), e.samples.end(), [](const Sample& s) { return !s.warmup; });
    return !has_samples || same_device(e.device, current);
}

std::string describe(const DeviceIdentity& device)
{
    if (device.empty())
        return "an unrecorded device";
    std::string where = device.kind;
    if (device.index)
        where += fmt::format(" {}", *device.index);
    if (!device.uuid.empty())
        where += fmt::format(", {}", device.uuid);
    return fmt::format("{} ({})", device.model.empty() ? "unnamed device" : device.model, where);
}

DeviceIdentity identity_from_sheet(const nlohmann::json& device)
{
    DeviceIdentity id;
    if (!device.is_object())
        return id;
    id.kind = device.value("kind", "");
    id.model = device.value("name", "");
    id.uuid = device.value("uuid", "");
    if (const auto it = device.find("index"); it != device.end() && it->is_number_integer())
        id.index = it->get<int>();
    if (const auto it = device.find("driver_version"); it != device.end() && !it->is_null())
        id.driver = it->is_string() ? it->get<std::string>() : it->dump();
    return id;
}

nlohmann::json device_identity_json(const DeviceIdentity& d)
{
    return {{"kind", d.kind}, {"name", d.model}, {"uuid", d.uuid},
        {"index", d.index ? nlohmann::json(*d.index) : nlohmann::json(nullptr)}, {"driver", d.driver}};
}

DeviceIdentity device_identity_from(const JsonReader& r)
{
    DeviceIdentity d;
    d.kind = r.string_or("kind", "");
    // "name", the hardware sheet's word (kwb devices, spec/cli.md), since schema 6; "model" before
    // it: the study migration renames it, A/A history lines written before are read as they are.
    d.model = r.has("name") ? r.string("name") : r.string_or("model", "");
    d.uuid = r.string_or("uuid", "");
    if (r.has("index")) {
        const long long index = r.integer("index");
        if (index < std::numeric_limits<int>::min() || index > std::numeric_limits<int>::max())
            r.fail("index", fmt::format("{} is out of range", index));
        d.index = static_cast<int>(index);
    }
    d.driver = r.string_or("driver", "");
    return d;
}

} // namespace kwb
