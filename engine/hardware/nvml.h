// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

// NVML (libnvidia-ml.so.1, shipped with the NVIDIA driver, not the toolkit) loaded with dlopen:
// no header and no link-time dependency, so kwb runs where there is no driver and says why. The
// few functions used are declared in nvml.cpp with the types of the NVML API reference.
//
// Used for the per-repetition clock, temperature, power and throttle record of GPU runs, for the
// NVML live sampler and for the "another process used the GPU" control. Devices are matched to
// CUDA devices by UUID ("GPU-xxxxxxxx-..."), never by index: CUDA orders devices fastest first,
// NVML by PCI bus.
namespace kwb::nvml {

// Bits of nvmlClocksEventReasons (called throttle reasons before NVML 12.2).
namespace reason {
inline constexpr unsigned long long kGpuIdle = 0x1;
inline constexpr unsigned long long kApplicationsClocksSetting = 0x2;
inline constexpr unsigned long long kSwPowerCap = 0x4;
inline constexpr unsigned long long kHwSlowdown = 0x8;
inline constexpr unsigned long long kSyncBoost = 0x10;
inline constexpr unsigned long long kSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kHwPowerBrakeSlowdown = 0x80;
inline constexpr unsigned long long kDisplayClockSetting = 0x100;
// The reasons that mean a power or thermal cap held the clock down.
inline constexpr unsigned long long kCaps
    = kSwPowerCap | kHwSlowdown | kSwThermalSlowdown | kHwThermalSlowdown | kHwPowerBrakeSlowdown;
} // namespace reason

// "sw_power_cap, hw_thermal_slowdown": the names of the set bits, for the study and messages.
std::vector<std::string> reason_names(unsigned long long bits);

// One reading of one device. A field NVML could not give (unsupported, no permission) is empty.
struct Reading {
    std::optional<double> sm_clock_mhz;
    std::optional<double> mem_clock_mhz;
    std::optional<double> temperature_c;
    std::optional<double> power_w;
    std::optional<double> memory_used_mib;
    std::optional<unsigned long long> clock_event_reasons;
    // Cumulative time (ns) the device spent held down by its power / thermal policy since boot:
    // the difference over a repetition says whether a cap acted during it, even between readings.
    std::optional<unsigned long long> power_violation_ns;
    std::optional<unsigned long long> thermal_violation_ns;
};

struct GpuProcess {
    unsigned pid = 0;
    std::optional<double> used_mib;
};

class Library;

class Device {
public:
    const std::string& uuid() const { return uuid_; }
    const std::string& name() const { return name_; }
    Reading read() const;
    std::optional<double> max_sm_clock_mhz() const;
    // Processes with a compute context on the device (this one included).
    std::vector<GpuProcess> compute_processes() const;

private:
    friend class Library;
    const Library* lib_ = nullptr;
    void* handle_ = nullptr;
    std::string uuid_;
    std::string name_;
};

// The process-wide NVML, loaded and initialised on first use.
class Library {
public:
    static const Library& instance();
    ~Library();

    bool available() const { return handle_ != nullptr; }
    // Empty when available; otherwise one line: "NVML not loaded: libnvidia-ml.so.1: cannot open ...".
    const std::string& unavailable_reason() const { return reason_; }
    std::string driver_version() const;

    int device_count() const;
    std::optional<Device> device_by_index(int index) const;
    // `uuid` as CUDA and NVML print it ("GPU-8c1a..."); nullopt when NVML has no such device.
    std::optional<Device> device_by_uuid(const std::string& uuid) const;

    struct Functions;
    const Functions& fn() const { return *fn_; }

private:
    Library();
    std::optional<Device> make_device(void* handle) const;
    void* lib_ = nullptr;
    void* handle_ = nullptr; // non-null once nvmlInit succeeded (the dlopen handle otherwise unused)
    std::unique_ptr<Functions> fn_;
    std::string reason_;
};

} // namespace kwb::nvml
