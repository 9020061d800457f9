// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/nvml_source.h"

#include "util/process_tree.h"

#include <chrono>
#include <unistd.h>

namespace kwb {
namespace {

enum Metric { SmClock, MemClock, Temperature, Power, MemoryUsed, ClockEvents, OtherProcesses };

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Whether `pid` is this process or descends from it; a chain longer than any real one (a loop
// read while pids were reused) counts as foreign.
bool started_here(unsigned pid)
{
    const auto self = static_cast<pid_t>(::getpid());
    auto p = static_cast<pid_t>(pid);
    for (int depth = 0; depth < 64 && p > 1; ++depth) {
        if (p == self)
            return true;
        const auto entry = read_process(p);
        if (!entry)
            return false;
        p = entry->ppid;
    }
    return false;
}

} // namespace

std::vector<unsigned> foreign_compute_processes(const nvml::Device& device)
{
    std::vector<unsigned> out;
    for (const auto& p : device.compute_processes())
        if (!started_here(p.pid))
            out.push_back(p.pid);
    return out;
}

NvmlSource::NvmlSource(const std::string& uuid)
    : metrics_ {{"nvml_sm_clock", "MHz"}, {"mem_clock", "MHz"}, {"temperature", "C"}, {"power", "W"},
        {"memory_used", "MiB"}, {"clock_events", "bits"}, {"other_gpu_processes", "count"}}
{
    const auto& lib = nvml::Library::instance();
    if (!lib.available()) {
        reason_ = lib.unavailable_reason();
        return;
    }
    device_ = uuid.empty() ? lib.device_by_index(0) : lib.device_by_uuid(uuid);
    if (!device_)
        reason_ = uuid.empty() ? "NVML sees no GPU" : "NVML has no device " + uuid;
}

void NvmlSource::begin()
{
    t0_ = now_s();
    max_other_ = 0;
}

void NvmlSource::poll(std::vector<RawReading>& out)
{
    if (!device_)
        return;
    const double t = now_s() - t0_;
    const auto r = device_->read();
    const auto add = [&](Metric m, const auto& v) {
        if (v)
            out.push_back({t, m, static_cast<double>(*v)});
    };
    add(SmClock, r.sm_clock_mhz);
    add(MemClock, r.mem_clock_mhz);
    add(Temperature, r.temperature_c);
    add(Power, r.power_w);
    add(MemoryUsed, r.memory_used_mib);
    add(ClockEvents, r.clock_event_reasons);
    const int others = static_cast<int>(foreign_compute_processes(*device_).size());
    max_other_ = std::max(max_other_, others);
    out.push_back({t, OtherProcesses, static_cast<double>(others)});
}

} // namespace kwb
