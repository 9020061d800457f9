// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kwb {

struct CpuCache {
    int level = 0;
    std::string type; // Data, Instruction, Unified
    std::uint64_t size_bytes = 0;
    int shared_by_cpus = 0;
};

struct CpuInfo {
    std::string model;
    std::string architecture; // uname machine, e.g. x86_64
    int logical_cores = 0; // usable by this process (affinity, cgroup-free count)
    int online_cores = 0;
    std::vector<CpuCache> caches;
    std::uint64_t memory_bytes = 0;
    std::vector<std::string> flags_of_interest; // avx2, avx512f, fma, neon...
};

// Reads /proc/cpuinfo, /proc/meminfo and /sys/devices/system/cpu; missing files leave fields empty.
CpuInfo query_cpu();

// The `kwb devices --json` object of the CPU: {"kind": "cpu", "name": ..., ...}.
nlohmann::json cpu_to_json(const CpuInfo& cpu);

} // namespace kwb
