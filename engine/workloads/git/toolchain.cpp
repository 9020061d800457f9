// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/git/toolchain.h"

#include "workloads/command/process.h"

#include <cstdlib>
#include <fstream>
#include <regex>

namespace kwb::git {
namespace {

std::string output(const std::string& cmd)
{
    command::ProcessSpec spec;
    spec.command = cmd + " 2>/dev/null";
    spec.timeout_s = 30;
    spec.max_output_bytes = 1u << 20;
    const auto r = command::run_process(spec);
    return r.ok() ? r.out : std::string();
}

std::string first_line(const std::string& s)
{
    return s.substr(0, s.find('\n'));
}

} // namespace

Toolchain probe_toolchain()
{
    Toolchain t;
    const char* cxx = std::getenv("CXX");
    t.compiler = first_line(output(std::string(cxx && *cxx ? cxx : "c++") + " --version"));
    const std::string nvcc = output("nvcc --version || /usr/local/cuda/bin/nvcc --version");
    std::smatch m;
    if (std::regex_search(nvcc, m, std::regex("release [^\\n]*")))
        t.cuda = m.str(0);
    std::ifstream proc("/proc/driver/nvidia/version");
    std::string line;
    if (std::getline(proc, line) && std::regex_search(line, m, std::regex("\\b(\\d+\\.\\d+(\\.\\d+)?)\\b")))
        t.driver = m.str(1);
    if (t.driver.empty())
        t.driver = first_line(output("nvidia-smi --query-gpu=driver_version --format=csv,noheader"));
    return t;
}

} // namespace kwb::git
