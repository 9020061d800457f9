// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/cpu_info.h"

#include <algorithm>
#include <fstream>
#include <sched.h>
#include <set>
#include <sstream>
#include <sys/utsname.h>
#include <unistd.h>

namespace kwb {
namespace {

std::string trim(std::string s)
{
    const auto b = s.find_first_not_of(" \t\n");
    const auto e = s.find_last_not_of(" \t\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string read_line(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return trim(line);
}

// "32K" / "1024K" / "8M" as sysfs writes cache sizes.
std::uint64_t parse_size(const std::string& text)
{
    if (text.empty())
        return 0;
    std::uint64_t value = std::strtoull(text.c_str(), nullptr, 10);
    switch (text.back()) {
    case 'K':
        return value << 10;
    case 'M':
        return value << 20;
    case 'G':
        return value << 30;
    default:
        return value;
    }
}

int count_cpus_in_list(const std::string& list)
{
    int count = 0;
    std::stringstream ss(list);
    std::string range;
    while (std::getline(ss, range, ',')) {
        const auto dash = range.find('-');
        if (dash == std::string::npos)
            count += range.empty() ? 0 : 1;
        else
            count += std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
    }
    return count;
}

} // namespace

CpuInfo query_cpu()
{
    CpuInfo cpu;
    utsname u {};
    if (::uname(&u) == 0)
        cpu.architecture = u.machine;

    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    std::set<std::string> flags;
    static const std::vector<std::string> interesting
        = {"avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", "amx_bf16", "asimd", "sve"};
    while (std::getline(cpuinfo, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        const auto key = trim(line.substr(0, colon));
        const auto value = trim(line.substr(colon + 1));
        if (cpu.model.empty() && (key == "model name" || key == "Model" || key == "cpu model"))
            cpu.model = value;
        if (flags.empty() && (key == "flags" || key == "Features")) {
            std::stringstream ss(value);
            std::string f;
            while (ss >> f)
                if (std::find(interesting.begin(), interesting.end(), f) != interesting.end())
                    flags.insert(f);
        }
    }
    cpu.flags_of_interest.assign(flags.begin(), flags.end());
    if (cpu.model.empty())
        cpu.model = cpu.architecture.empty() ? "unknown CPU" : cpu.architecture + " CPU";

    cpu_set_t set;
    CPU_ZERO(&set);
    cpu.logical_cores = ::sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    cpu.online_cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    if (cpu.logical_cores <= 0)
        cpu.logical_cores = cpu.online_cores;

    for (int index = 0;; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        const auto level = read_line(dir + "level");
        if (level.empty())
            break;
        CpuCache cache;
        cache.level = std::atoi(level.c_str());
        cache.type = read_line(dir + "type");
        cache.size_bytes = parse_size(read_line(dir + "size"));
        cache.shared_by_cpus = count_cpus_in_list(read_line(dir + "shared_cpu_list"));
        cpu.caches.push_back(cache);
    }

    std::ifstream meminfo("/proc/meminfo");
    while (std::getline(meminfo, line))
        if (line.rfind("MemTotal:", 0) == 0)
            cpu.memory_bytes = std::strtoull(line.c_str() + 9, nullptr, 10) * 1024;
    return cpu;
}

nlohmann::json cpu_to_json(const CpuInfo& cpu)
{
    nlohmann::json caches = nlohmann::json::array();
    for (const auto& c : cpu.caches)
        caches.push_back(
            {{"level", c.level}, {"type", c.type}, {"size_bytes", c.size_bytes}, {"shared_by_cpus", c.shared_by_cpus}});
    return {{"kind", "cpu"}, {"name", cpu.model}, {"architecture", cpu.architecture},
        {"logical_cores", cpu.logical_cores}, {"online_cores", cpu.online_cores}, {"caches", caches},
        {"memory_bytes", cpu.memory_bytes}, {"flags", cpu.flags_of_interest}};
}

} // namespace kwb
