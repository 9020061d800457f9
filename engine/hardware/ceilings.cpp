// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/ceilings.h"

#include "study/study_file.h"
#include "util/atomic_file.h"

#include <cstdlib>
#include <fmt/format.h>
#include <system_error>

namespace kwb {
namespace {

nlohmann::json read_all_ceilings()
{
    const auto path = ceilings_path();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return nlohmann::json::object();
    // A file damaged by hand is not worth failing `kwb devices` for: treat it as empty, and the
    // next calibration rewrites it whole.
    auto doc = nlohmann::json::parse(read_file(path), nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("devices") || !doc["devices"].is_object())
        return nlohmann::json::object();
    return doc["devices"];
}

} // namespace

std::filesystem::path ceilings_path()
{
    const char* xdg = std::getenv("XDG_DATA_HOME");
    if (xdg && *xdg == '/')
        return std::filesystem::path(xdg) / "kernel-workbench" / "ceilings.json";
    const char* home = std::getenv("HOME");
    return std::filesystem::path(home && *home ? home : "/tmp") / ".local/share/kernel-workbench/ceilings.json";
}

nlohmann::json load_ceilings(const std::string& uuid)
{
    if (uuid.empty())
        return nullptr;
    const auto all = read_all_ceilings();
    const auto it = all.find(uuid);
    return it == all.end() ? nlohmann::json(nullptr) : *it;
}

std::string cpu_ceilings_key(const std::string& model)
{
    return "cpu:" + model;
}

void store_ceilings(const std::string& uuid, const std::string& model, const nlohmann::json& measured)
{
    auto all = read_all_ceilings();
    auto entry = measured;
    entry["model"] = model;
    entry["measured_at"] = utc_now_iso8601();
    all[uuid] = std::move(entry);
    const auto path = ceilings_path();
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        throw std::runtime_error(
            fmt::format("{}: cannot create the folder: {}", path.parent_path().string(), ec.message()));
    write_file_atomically(path, nlohmann::json {{"devices", all}}.dump(2) + "\n");
}

} // namespace kwb
