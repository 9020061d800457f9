// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/nvml.h"
#include "run/repetition_monitor.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

// The per-repetition record of a GPU run (nvbench's throttle detection, with NVML): SM and memory
// clocks, power and temperature averaged over readings taken every `period_ms` during the
// repetition, the clock-event reasons seen, and the throttled flag.
namespace kwb {

// Pure and testable with a synthetic clock record: fills `out` from the readings taken during a
// repetition and the power/thermal violation counters read before and after it. A repetition is
// throttled when NVML reports a power or thermal cap during it (a cap reason in any reading, or
// a violation counter that grew) or its mean SM clock is under 75% of the device's maximum.
void summarise_repetition(const std::vector<nvml::Reading>& during, const nvml::Reading& before,
    const nvml::Reading& after, std::optional<double> max_sm_clock_mhz, Sample& out);

// The fraction of the maximum SM clock under which a repetition counts as throttled.
inline constexpr double kThrottledClockFraction = 0.75;

class NvmlRepetitionMonitor final : public RepetitionMonitor {
public:
    explicit NvmlRepetitionMonitor(nvml::Device device, double period_ms = 2.0);
    ~NvmlRepetitionMonitor() override;
    NvmlRepetitionMonitor(const NvmlRepetitionMonitor&) = delete;
    NvmlRepetitionMonitor& operator=(const NvmlRepetitionMonitor&) = delete;

    void begin() override;
    void end(Sample& sample) override;

private:
    void poll();

    nvml::Device device_;
    std::optional<double> max_sm_clock_mhz_;
    double period_ms_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool active_ = false;
    bool stop_ = false;
    nvml::Reading before_;
    std::vector<nvml::Reading> during_;
    std::thread thread_;
};

} // namespace kwb
