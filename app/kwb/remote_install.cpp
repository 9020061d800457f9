// SPDX-License-Identifier: GPL-3.0-or-later
#include "remote_install.h"

#include "commands.h"
#include "hardware/gpu_backend.h"
#include "remote_hosts.h"
#include "ssh_session.h"
#include "study/study_file.h"
#include "subprocess.h"

#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace kwb::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kWrapper = R"sh(#!/bin/sh
# kwb as `kwb remote install` put it here: its own libraries first (deps/), which kwb takes out of
# LD_LIBRARY_PATH again for the programs it starts.
here=$(cd "$(dirname "$0")" && pwd)
KWB_BUNDLE_LIBS="$here/../deps"
LD_LIBRARY_PATH="$KWB_BUNDLE_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KWB_BUNDLE_LIBS LD_LIBRARY_PATH
exec "$here/kwb.bin" "$@"
)sh";

// The C and C++ runtime and the driver are the server's own (pack.sh leaves out the same).
const std::regex kSystemLibrary(
    R"(/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda)\.so)");

fs::path program_path()
{
    std::error_code ec;
    const auto exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw std::runtime_error("cannot find this kwb's own file (/proc/self/exe): " + ec.message());
    return exe;
}

void copy_stripped(const fs::path& from, const fs::path& to)
{
    fs::create_directories(to.parent_path());
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    // Debug information is most of an unstripped build's size; without strip it travels as is.
    run_process({"strip", "--strip-debug", to.string()});
}

std::set<fs::path> linked_libraries(const fs::path& binary)
{
    std::set<fs::path> libs;
    const auto r = run_process({"ldd", binary.string()});
    if (r.exit_code != 0)
        throw std::runtime_error(fmt::format(
            "ldd {}: {}", binary.string(), r.start_error.empty() ? r.err.substr(0, r.err.find('\n')) : r.start_error));
    std::istringstream lines(r.out);
    std::string line;
    static const std::regex arrow(R"(=>\s+(/\S+))");
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_search(line, m, arrow) && !std::regex_search(m[1].str(), kSystemLibrary))
            libs.insert(m[1].str());
    }
    return libs;
}

// $KWB_REMOTE_INSTALL_DIR (a site's shared default, or a test's folder), else under the remote home.
std::string default_dir()
{
    if (const char* env = std::getenv("KWB_REMOTE_INSTALL_DIR"); env && *env)
        return env;
    return ".local/share/kernel-workbench/kwb-" KWB_VERSION;
}

} // namespace

std::vector<std::string> make_bundle(const fs::path& dest)
{
    std::vector<std::string> summary;
    const fs::path exe = program_path();
    copy_stripped(exe, dest / "bin" / "kwb.bin");
    {
        std::ofstream(dest / "bin" / "kwb") << kWrapper;
        fs::permissions(dest / "bin" / "kwb",
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read
                | fs::perms::others_exec);
    }
    summary.push_back(fmt::format("kwb {}", KWB_VERSION));
    std::set<fs::path> libs = linked_libraries(exe);
    for (const auto& candidate : GpuBackend::candidate_paths()) {
        std::error_code ec;
        if (!fs::exists(candidate, ec))
            continue;
        copy_stripped(candidate, dest / "lib" / "kernel-workbench" / "libkwb_gpu_backend.so");
        summary.emplace_back("the GPU plugin");
        const auto plugin_libs = linked_libraries(candidate);
        libs.insert(plugin_libs.begin(), plugin_libs.end());
        break;
    }
    fs::create_directories(dest / "deps");
    for (const auto& lib : libs)
        fs::copy_file(fs::canonical(lib), dest / "deps" / lib.filename(), fs::copy_options::overwrite_existing);
    summary.push_back(fmt::format("{} libraries it links", libs.size()));
    const fs::path fonts = exe.parent_path().parent_path() / "share" / "kernel-workbench" / "fonts";
    if (std::error_code ec; fs::is_directory(fonts, ec)) {
        fs::create_directories(dest / "share" / "kernel-workbench");
        fs::copy(fonts, dest / "share" / "kernel-workbench" / "fonts", fs::copy_options::recursive);
        summary.emplace_back("the reports' font faces");
    }
    return summary;
}

int remote_install(const RemoteInstallOptions& o)
{
    const std::string dir = o.dir.empty() ? default_dir() : o.dir;
    std::error_code ec;
    const fs::path staging = fs::temp_directory_path() / fmt::format("kwb-bundle-{}", ::getpid());
    fs::remove_all(staging, ec);
    struct Cleanup {
        fs::path path;
        ~Cleanup()
        {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    } cleanup {staging};
    const auto summary = make_bundle(staging / "kwb");
    const fs::path tarball = staging / "kwb.tar.gz";
    if (const auto t = run_process({"tar", "-C", (staging / "kwb").string(), "-czf", tarball.string(), "."});
        t.exit_code != 0)
        throw std::runtime_error("tar: " + (t.start_error.empty() ? t.err : t.start_error));
    std::ifstream in(tarball, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    // Unpacked beside the old install, checked, then swapped in: a failed copy or a bundle that
    // does not run on that host leaves what was there.
    const std::string d = remote_shell_path(dir);
    const std::string script = "set -e; d=" + d + "; rm -rf \"$d.new\"; mkdir -p \"$d.new\"; "
        + "tar -xzf - -C \"$d.new\"; v=$(\"$d.new/bin/kwb\" --version 2>&1) || { echo \"$v\" >&2; rm -rf \"$d.new\"; "
          "exit 3; }; "
        + "[ \"$v\" = 'kwb " KWB_VERSION "' ] || { echo \"it answered: $v\" >&2; rm -rf \"$d.new\"; exit 3; }; "
        + "rm -rf \"$d\"; mv \"$d.new\" \"$d\"; cd \"$d\"; echo \"$v\"; pwd";
    const auto r = ssh_run(o.host, script, bytes);
    if (r.exit_code == 255)
        throw BadInput(fmt::format("{}: cannot reach it over ssh: {}", o.host, r.last_err_line()));
    if (r.exit_code != 0) {
        fmt::print(stderr, "kwb: {}: the bundle did not run there ({}): {}\n", o.host,
            r.exit_code == 3 ? "kwb --version was not this version's" : fmt::format("exit {}", r.exit_code),
            r.last_err_line());
        return kRunFailed;
    }
    std::istringstream lines(r.out);
    std::string version, absolute;
    std::getline(lines, version);
    std::getline(lines, absolute);
    if (version != "kwb " KWB_VERSION || absolute.empty() || absolute.front() != '/') {
        fmt::print(stderr, "kwb: {}: the installed kwb answered \"{}\" in \"{}\", expected kwb {}\n", o.host, version,
            absolute, KWB_VERSION);
        return kRunFailed;
    }
    const InstalledKwb installed {absolute + "/bin/kwb", KWB_VERSION, absolute, utc_now_iso8601()};
    record_installed_kwb(o.host, installed);
    if (o.json)
        fmt::print("{}\n",
            nlohmann::json {{"host", o.host}, {"kwb", installed.kwb}, {"version", installed.version},
                {"dir", installed.dir}, {"bytes", bytes.size()}, {"record", remote_hosts_file().string()}}
                .dump(2));
    else
        fmt::print("installed {} on {} at {} ({:.1f} MB packed: {}); kwb run --host {} uses it\n", version, o.host,
            absolute, static_cast<double>(bytes.size()) / 1e6, fmt::join(summary, ", "), o.host);
    return kOk;
}

int write_bundle(const std::string& dir)
{
    std::error_code ec;
    if (fs::exists(dir, ec))
        throw BadInput(fmt::format("{}: exists (kwb remote bundle writes a new folder)", dir));
    const auto parts = make_bundle(dir);
    fmt::print("wrote {}: {}; run {}/bin/kwb\n", dir, fmt::join(parts, ", "), dir);
    return kOk;
}

void forget_bundle_library_path()
{
    const char* bundle = std::getenv("KWB_BUNDLE_LIBS");
    if (!bundle || !*bundle)
        return;
    const std::string entry = bundle;
    const char* current = std::getenv("LD_LIBRARY_PATH");
    std::string kept;
    std::istringstream parts(current ? current : "");
    std::string part;
    while (std::getline(parts, part, ':'))
        if (part != entry)
            kept += (kept.empty() ? "" : ":") + part;
    if (kept.empty())
        ::unsetenv("LD_LIBRARY_PATH");
    else
        ::setenv("LD_LIBRARY_PATH", kept.c_str(), 1);
    ::unsetenv("KWB_BUNDLE_LIBS");
}

} // namespace kwb::cli
