// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/nvml.h"

#include <array>
#include <dlfcn.h>
#include <fmt/format.h>

namespace kwb::nvml {
namespace {

// The NVML types this file needs, as the NVML API reference defines them.
using Return = int; // nvmlReturn_t; NVML_SUCCESS = 0
using DeviceHandle = void*;
constexpr Return kSuccess = 0;
constexpr Return kInsufficientSize = 7;
constexpr unsigned kClockSm = 1;
constexpr unsigned kClockMem = 2;
constexpr unsigned kTemperatureGpu = 0;
constexpr unsigned kPolicyPower = 0;
constexpr unsigned kPolicyThermal = 1;
constexpr unsigned kStringSize = 96; // NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_NAME_V2_BUFFER_SIZE

struct Memory {
    unsigned long long total, free, used;
};
struct ViolationTime {
    unsigned long long reference_time_us, violation_time_ns;
};
struct ProcessInfo { // nvmlProcessInfo_t (v2) of the _v3 process queries
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id, compute_instance_id;
};

template<typename F> F symbol(void* lib, const char* name)
{
    return reinterpret_cast<F>(::dlsym(lib, name));
}

} // namespace

struct Library::Functions {
    Return (*init)() = nullptr;
    Return (*shutdown)() = nullptr;
    const char* (*error_string)(Return) = nullptr;
    Return (*driver_version)(char*, unsigned) = nullptr;
    Return (*count)(unsigned*) = nullptr;
    Return (*by_index)(unsigned, DeviceHandle*) = nullptr;
    Return (*by_uuid)(const char*, DeviceHandle*) = nullptr;
    Return (*uuid)(DeviceHandle, char*, unsigned) = nullptr;
    Return (*name)(DeviceHandle, char*, unsigned) = nullptr;
    Return (*clock)(DeviceHandle, unsigned, unsigned*) = nullptr;
    Return (*max_clock)(DeviceHandle, unsigned, unsigned*) = nullptr;
    Return (*temperature)(DeviceHandle, unsigned, unsigned*) = nullptr;
    Return (*power)(DeviceHandle, unsigned*) = nullptr;
    Return (*memory)(DeviceHandle, Memory*) = nullptr;
    Return (*reasons)(DeviceHandle, unsigned long long*) = nullptr;
    Return (*violation)(DeviceHandle, unsigned, ViolationTime*) = nullptr;
    Return (*processes)(DeviceHandle, unsigned*, ProcessInfo*) = nullptr;
};

std::vector<std::string> reason_names(unsigned long long bits)
{
    static constexpr std::array<std::pair<unsigned long long, const char*>, 9> kNames {{
        {reason::kGpuIdle, "gpu_idle"},
        {reason::kApplicationsClocksSetting, "applications_clocks_setting"},
        {reason::kSwPowerCap, "sw_power_cap"},
        {reason::kHwSlowdown, "hw_slowdown"},
        {reason::kSyncBoost, "sync_boost"},
        {reason::kSwThermalSlowdown, "sw_thermal_slowdown"},
        {reason::kHwThermalSlowdown, "hw_thermal_slowdown"},
        {reason::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
        {reason::kDisplayClockSetting, "display_clock_setting"},
    }};
    std::vector<std::string> names;
    for (const auto& [bit, name] : kNames)
        if (bits & bit)
            names.emplace_back(name);
    if (const unsigned long long known = 0x1ff; bits & ~known)
        names.push_back(fmt::format("other_0x{:x}", bits & ~known));
    return names;
}

const Library& Library::instance()
{
    static const Library library;
    return library;
}

Library::Library()
    : fn_(std::make_unique<Functions>())
{
    lib_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
        reason_ = fmt::format("NVML not loaded ({}): clocks, power and throttle reasons are not recorded", ::dlerror());
        return;
    }
    Functions& f = *fn_;
    f.init = symbol<decltype(f.init)>(lib_, "nvmlInit_v2");
    f.shutdown = symbol<decltype(f.shutdown)>(lib_, "nvmlShutdown");
    f.error_string = symbol<decltype(f.error_string)>(lib_, "nvmlErrorString");
    f.driver_version = symbol<decltype(f.driver_version)>(lib_, "nvmlSystemGetDriverVersion");
    f.count = symbol<decltype(f.count)>(lib_, "nvmlDeviceGetCount_v2");
    f.by_index = symbol<decltype(f.by_index)>(lib_, "nvmlDeviceGetHandleByIndex_v2");
    f.by_uuid = symbol<decltype(f.by_uuid)>(lib_, "nvmlDeviceGetHandleByUUID");
    f.uuid = symbol<decltype(f.uuid)>(lib_, "nvmlDeviceGetUUID");
    f.name = symbol<decltype(f.name)>(lib_, "nvmlDeviceGetName");
    f.clock = symbol<decltype(f.clock)>(lib_, "nvmlDeviceGetClockInfo");
    f.max_clock = symbol<decltype(f.max_clock)>(lib_, "nvmlDeviceGetMaxClockInfo");
    f.temperature = symbol<decltype(f.temperature)>(lib_, "nvmlDeviceGetTemperature");
    f.power = symbol<decltype(f.power)>(lib_, "nvmlDeviceGetPowerUsage");
    f.memory = symbol<decltype(f.memory)>(lib_, "nvmlDeviceGetMemoryInfo");
    f.reasons = symbol<decltype(f.reasons)>(lib_, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!f.reasons) // drivers before 535 name it by its old name
        f.reasons = symbol<decltype(f.reasons)>(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons");
    f.violation = symbol<decltype(f.violation)>(lib_, "nvmlDeviceGetViolationStatus");
    f.processes = symbol<decltype(f.processes)>(lib_, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!f.init || !f.count || !f.by_index || !f.uuid) {
        reason_ = "NVML is too old (nvmlInit_v2 or a device query is missing): clocks and power are not recorded";
        return;
    }
    if (const Return r = f.init(); r != kSuccess) {
        reason_ = fmt::format("NVML did not initialise ({}): clocks and power are not recorded",
            f.error_string ? f.error_string(r) : fmt::format("error {}", r));
        return;
    }
    handle_ = lib_;
}

Library::~Library()
{
    // Shutting NVML down at exit races other static destructors for nothing: the process ends.
}

std::string Library::driver_version() const
{
    char text[kStringSize] = {};
    if (!available() || !fn_->driver_version || fn_->driver_version(text, sizeof text) != kSuccess)
        return {};
    return text;
}

int Library::device_count() const
{
    unsigned n = 0;
    if (!available() || fn_->count(&n) != kSuccess)
        return 0;
    return static_cast<int>(n);
}

std::optional<Device> Library::make_device(void* handle) const
{
    Device d;
    d.lib_ = this;
    d.handle_ = handle;
    char text[kStringSize] = {};
    if (fn_->uuid(handle, text, sizeof text) == kSuccess)
        d.uuid_ = text;
    if (fn_->name && fn_->name(handle, text, sizeof text) == kSuccess)
        d.name_ = text;
    return d;
}

std::optional<Device> Library::device_by_index(int index) const
{
    DeviceHandle h = nullptr;
    if (!available() || index < 0 || fn_->by_index(static_cast<unsigned>(index), &h) != kSuccess)
        return std::nullopt;
    return make_device(h);
}

std::optional<Device> Library::device_by_uuid(const std::string& uuid) const
{
    DeviceHandle h = nullptr;
    if (!available() || !fn_->by_uuid || uuid.empty() || fn_->by_uuid(uuid.c_str(), &h) != kSuccess)
        return std::nullopt;
    return make_device(h);
}

Reading Device::read() const
{
    Reading r;
    const auto& f = lib_->fn();
    unsigned u = 0;
    if (f.clock && f.clock(handle_, kClockSm, &u) == kSuccess)
        r.sm_clock_mhz = u;
    if (f.clock && f.clock(handle_, kClockMem, &u) == kSuccess)
        r.mem_clock_mhz = u;
    if (f.temperature && f.temperature(handle_, kTemperatureGpu, &u) == kSuccess)
        r.temperature_c = u;
    if (f.power && f.power(handle_, &u) == kSuccess)
        r.power_w = u / 1000.0;
    if (Memory m {}; f.memory && f.memory(handle_, &m) == kSuccess)
        r.memory_used_mib = static_cast<double>(m.used) / (1024.0 * 1024.0);
    if (unsigned long long bits = 0; f.reasons && f.reasons(handle_, &bits) == kSuccess)
        r.clock_event_reasons = bits;
    if (ViolationTime v {}; f.violation && f.violation(handle_, kPolicyPower, &v) == kSuccess)
        r.power_violation_ns = v.violation_time_ns;
    if (ViolationTime v {}; f.violation && f.violation(handle_, kPolicyThermal, &v) == kSuccess)
        r.thermal_violation_ns = v.violation_time_ns;
    return r;
}

std::optional<double> Device::max_sm_clock_mhz() const
{
    unsigned u = 0;
    const auto& f = lib_->fn();
    if (f.max_clock && f.max_clock(handle_, kClockSm, &u) == kSuccess && u > 0)
        return u;
    return std::nullopt;
}

std::vector<GpuProcess> Device::compute_processes() const
{
    const auto& f = lib_->fn();
    std::vector<GpuProcess> out;
    if (!f.processes)
        return out;
    std::vector<ProcessInfo> infos(16);
    for (int attempt = 0; attempt < 3; ++attempt) {
        auto count = static_cast<unsigned>(infos.size());
        const Return r = f.processes(handle_, &count, infos.data());
        if (r == kInsufficientSize) {
            infos.resize(count + 8);
            continue;
        }
        if (r != kSuccess)
            return out;
        for (unsigned i = 0; i < count; ++i) {
            GpuProcess p;
            p.pid = infos[i].pid;
            // NVML_VALUE_NOT_AVAILABLE (all ones) where the driver does not track per-process memory.
            if (infos[i].used_gpu_memory != ~0ull)
                p.used_mib = static_cast<double>(infos[i].used_gpu_memory) / (1024.0 * 1024.0);
            out.push_back(p);
        }
        return out;
    }
    return out;
}

} // namespace kwb::nvml
