// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/cuobjdump.h"

#include "workloads/command/process.h"
#include "workloads/git/shell_quote.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

namespace kwb {
namespace fs = std::filesystem;
namespace {

bool executable_file(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

bool is_elf(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    char magic[4] = {};
    in.read(magic, 4);
    return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

std::string utc_now()
{
    return fmt::format(
        "{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

command::ProcessResult run(const std::string& cmd)
{
    command::ProcessSpec spec;
    spec.command = cmd;
    spec.timeout_s = 300;
    spec.max_output_bytes = 256u << 20;
    return command::run_process(spec);
}

} // namespace

std::string find_cuobjdump()
{
    if (const char* own = std::getenv("KWB_CUOBJDUMP"); own && *own)
        return executable_file(own) ? std::string(own) : std::string();
    if (const char* path = std::getenv("PATH")) {
        std::string p = path;
        size_t start = 0;
        while (start <= p.size()) {
            const size_t end = p.find(':', start);
            const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
            if (!dir.empty() && executable_file(fs::path(dir) / "cuobjdump"))
                return (fs::path(dir) / "cuobjdump").string();
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
    }
    std::vector<fs::path> dirs;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
        dirs.emplace_back(fs::path(home) / "bin");
    dirs.emplace_back("/usr/local/cuda/bin");
    for (const auto& d : dirs)
        if (executable_file(d / "cuobjdump"))
            return (d / "cuobjdump").string();
    return {};
}

std::vector<fs::path> device_code_candidates(const fs::path& root)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec)
            break;
        if (it->is_directory(ec) && it->path().filename() == ".git") {
            it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(ec) || it->is_symlink(ec))
            continue;
        const auto ext = it->path().extension().string();
        const bool candidate = ext == ".cubin" || ext == ".so" || ext == ".o" || executable_file(it->path());
        if (candidate && (ext == ".cubin" || is_elf(it->path())))
            out.push_back(fs::relative(it->path(), root, ec));
    }
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

const char* kNoCuobjdump = "cuobjdump is not on PATH (nor in $CUDA_HOME/bin or /usr/local/cuda/bin)";

// The kernels of one file (`as`: the name rows carry), with notes on what cuobjdump could not do.
void read_file_kernels(const std::string& tool, const fs::path& path, const std::string& as, KernelInventory& inv)
{
    const std::string file = git::shell_quote(path.string());
    const auto usage = run(fmt::format("{} --dump-resource-usage {}", git::shell_quote(tool), file));
    if (!usage.ok())
        return; // no device code in it ("does not contain device code"), or not a CUDA binary
    auto kernels = parse_resource_usage(usage.out, as);
    if (kernels.empty())
        return;
    const auto sass = run(fmt::format("{} -sass {}", git::shell_quote(tool), file));
    const auto hashes = sass.ok() ? parse_sass_hashes(sass.out) : std::map<std::string, std::string> {};
    if (!sass.ok())
        inv.notes.push_back(fmt::format("{}: cuobjdump -sass failed ({}): no SASS hashes", as, sass.describe()));
    for (auto& k : kernels) {
        const auto it = hashes.find(k.arch + "|" + k.name);
        if (it != hashes.end())
            k.sass_sha256 = it->second;
        inv.kernels.push_back(std::move(k));
    }
}

} // namespace

KernelInventory read_build_kernels(const fs::path& root)
{
    KernelInventory inv;
    inv.taken_at = utc_now();
    const std::string tool = find_cuobjdump();
    if (tool.empty()) {
        inv.notes.push_back(std::string(kNoCuobjdump) + ": the build's CUDA kernels were not read");
        return inv;
    }
    inv.source = "cuobjdump";
    for (const auto& rel : device_code_candidates(root))
        read_file_kernels(tool, root / rel, rel.string(), inv);
    if (inv.kernels.empty())
        inv.notes.push_back("cuobjdump found no CUDA kernels in the build's binaries");
    return inv;
}

KernelInventory read_binary_kernels(const fs::path& file)
{
    KernelInventory inv;
    inv.taken_at = utc_now();
    const std::string tool = find_cuobjdump();
    if (tool.empty()) {
        inv.notes.push_back(fmt::format("{}: {} was not read", kNoCuobjdump, file.string()));
        return inv;
    }
    inv.source = "cuobjdump";
    read_file_kernels(tool, file, file.filename().string(), inv);
    if (inv.kernels.empty())
        inv.notes.push_back(fmt::format("cuobjdump found no CUDA kernels in {}", file.string()));
    return inv;
}

} // namespace kwb
