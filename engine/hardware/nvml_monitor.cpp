// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/nvml_monitor.h"

#include <chrono>
#include <fmt/format.h>

namespace kwb {
namespace {

template<typename Field> std::optional<double> mean_of(const std::vector<nvml::Reading>& readings, Field field)
{
    double sum = 0;
    int n = 0;
    for (const auto& r : readings)
        if (const auto v = field(r)) {
            sum += *v;
            ++n;
        }
    return n ? std::optional<double>(sum / n) : std::nullopt;
}

bool grew(const std::optional<unsigned long long>& before, const std::optional<unsigned long long>& after)
{
    return before && after && *after > *before;
}

} // namespace

void summarise_repetition(const std::vector<nvml::Reading>& during, const nvml::Reading& before,
    const nvml::Reading& after, std::optional<double> max_sm_clock_mhz, Sample& out)
{
    // The readings at both ends count too: a repetition shorter than the polling period still
    // gets its clocks.
    std::vector<nvml::Reading> all;
    all.reserve(during.size() + 2);
    all.push_back(before);
    all.insert(all.end(), during.begin(), during.end());
    all.push_back(after);
    out.clock_mhz = mean_of(all, [](const nvml::Reading& r) { return r.sm_clock_mhz; });
    out.mem_clock_mhz = mean_of(all, [](const nvml::Reading& r) { return r.mem_clock_mhz; });
    out.power_w = mean_of(all, [](const nvml::Reading& r) { return r.power_w; });
    out.temperature_c = mean_of(all, [](const nvml::Reading& r) { return r.temperature_c; });

    unsigned long long reasons = 0;
    for (const auto& r : all)
        reasons |= r.clock_event_reasons.value_or(0);
    // Idle between launches is not a cap; it only says the GPU waited for the host.
    out.throttle_reasons = nvml::reason_names(reasons & ~nvml::reason::kGpuIdle);
    const bool power_capped = grew(before.power_violation_ns, after.power_violation_ns);
    const bool thermal_capped = grew(before.thermal_violation_ns, after.thermal_violation_ns);
    if (power_capped && !(reasons & nvml::reason::kSwPowerCap))
        out.throttle_reasons.emplace_back("power_violation");
    if (thermal_capped && !(reasons & (nvml::reason::kSwThermalSlowdown | nvml::reason::kHwThermalSlowdown)))
        out.throttle_reasons.emplace_back("thermal_violation");
    const bool slow_clock
        = out.clock_mhz && max_sm_clock_mhz && *out.clock_mhz < kThrottledClockFraction * *max_sm_clock_mhz;
    if (slow_clock)
        out.throttle_reasons.push_back(fmt::format("sm_clock_below_{:.0f}pct", 100 * kThrottledClockFraction));
    out.throttled = (reasons & nvml::reason::kCaps) != 0 || power_capped || thermal_capped || slow_clock;
}

NvmlRepetitionMonitor::NvmlRepetitionMonitor(nvml::Device device, double period_ms)
    : device_(std::move(device))
    , max_sm_clock_mhz_(device_.max_sm_clock_mhz())
    , period_ms_(period_ms)
    , thread_([this] { poll(); })
{
}

NvmlRepetitionMonitor::~NvmlRepetitionMonitor()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void NvmlRepetitionMonitor::begin()
{
    const auto reading = device_.read();
    {
        std::lock_guard lock(mutex_);
        before_ = reading;
        during_.clear();
        active_ = true;
    }
    cv_.notify_all();
}

void NvmlRepetitionMonitor::end(Sample& sample)
{
    std::vector<nvml::Reading> during;
    nvml::Reading before;
    {
        std::lock_guard lock(mutex_);
        active_ = false;
        during.swap(during_);
        before = before_;
    }
    summarise_repetition(during, before, device_.read(), max_sm_clock_mhz_, sample);
}

void NvmlRepetitionMonitor::poll()
{
    const auto period = std::chrono::duration<double, std::milli>(period_ms_);
    std::unique_lock lock(mutex_);
    while (!stop_) {
        cv_.wait(lock, [&] { return stop_ || active_; });
        while (!stop_ && active_) {
            lock.unlock();
            const auto reading = device_.read(); // NVML outside the lock: end() never waits for it
            lock.lock();
            if (active_)
                during_.push_back(reading);
            cv_.wait_for(lock, period, [&] { return stop_ || !active_; });
        }
    }
}

} // namespace kwb
