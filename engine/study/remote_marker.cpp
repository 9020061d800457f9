// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/remote_marker.h"

#include "util/atomic_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kwb {

std::string RemoteRun::describe() const
{
    return fmt::format("host {} (folder {})", host, remote_folder);
}

std::filesystem::path remote_marker_path(const std::filesystem::path& study)
{
    std::error_code ec;
    std::filesystem::path resolved = std::filesystem::weakly_canonical(study, ec);
    if (ec)
        resolved = study;
    return resolved.parent_path() / ("." + resolved.filename().string() + ".remote");
}

std::optional<RemoteRun> read_remote_marker(const std::filesystem::path& study)
{
    const auto path = remote_marker_path(study);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return std::nullopt;
    const auto doc = nlohmann::json::parse(read_file(path, 1 << 20), nullptr, false);
    const auto text = [&](const char* key) {
        if (!doc.is_object() || !doc.contains(key) || !doc.at(key).is_string())
            throw std::runtime_error(fmt::format("{}: {}: missing or not a string (the record of a remote run; "
                                                 "remove the file if no run on a remote host owns the study)",
                path.string(), key));
        return doc.at(key).get<std::string>();
    };
    RemoteRun run;
    run.host = text("host");
    run.remote_kwb = text("remote_kwb");
    run.remote_folder = text("remote_folder");
    run.study_name = text("study_name");
    run.local_host = text("local_host");
    run.started_at = text("started_at");
    return run;
}

std::string remote_run_refusal(const std::filesystem::path& study)
{
    try {
        if (const auto run = read_remote_marker(study))
            return fmt::format("is being run on {} since {}; it comes back when that run ends (kwb run --attach, or "
                               "Reattach in the window, follows it)",
                run->describe(), run->started_at);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

void write_remote_marker(const std::filesystem::path& study, const RemoteRun& run)
{
    const nlohmann::json doc {{"host", run.host}, {"remote_kwb", run.remote_kwb}, {"remote_folder", run.remote_folder},
        {"study_name", run.study_name}, {"local_host", run.local_host}, {"started_at", run.started_at}};
    write_file_atomically(remote_marker_path(study), doc.dump(2) + "\n");
}

void remove_remote_marker(const std::filesystem::path& study)
{
    std::error_code ec;
    std::filesystem::remove(remote_marker_path(study), ec);
}

} // namespace kwb
