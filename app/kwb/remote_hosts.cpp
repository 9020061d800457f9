// SPDX-License-Identifier: GPL-3.0-or-later
#include "remote_hosts.h"

#include "util/atomic_file.h"
#include "util/state_dir.h"

#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kwb::cli {
namespace {

nlohmann::json read_all()
{
    std::ifstream in(remote_hosts_file());
    if (!in)
        return nlohmann::json::object();
    auto j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object())
        throw std::runtime_error(fmt::format(
            "{}: not a JSON object (remove it and run kwb remote install again)", remote_hosts_file().string()));
    return j;
}

} // namespace

std::filesystem::path remote_hosts_file()
{
    return kwb_state_dir("the record of installed kwbs") / "remote-hosts.json";
}

std::optional<InstalledKwb> installed_kwb(const std::string& host)
{
    const auto all = read_all();
    const auto it = all.find(host);
    if (it == all.end() || !it->is_object() || !it->contains("kwb"))
        return std::nullopt;
    return InstalledKwb {
        it->value("kwb", ""), it->value("version", ""), it->value("dir", ""), it->value("installed_at", "")};
}

void record_installed_kwb(const std::string& host, const InstalledKwb& installed)
{
    auto all = read_all();
    all[host] = {{"kwb", installed.kwb}, {"version", installed.version}, {"dir", installed.dir},
        {"installed_at", installed.installed_at}};
    const auto file = remote_hosts_file();
    std::filesystem::create_directories(file.parent_path());
    write_file_atomically(file, all.dump(2) + "\n");
}

std::string remote_kwb_for(const std::string& host, const std::string& remote_kwb_option)
{
    if (!remote_kwb_option.empty())
        return remote_kwb_option;
    if (const auto installed = installed_kwb(host))
        return installed->kwb;
    return "kwb";
}

} // namespace kwb::cli
