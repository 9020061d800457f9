// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <functional>
#include <string>

// What the runner records around each repetition besides the workload's own numbers: the
// device's clocks, power, temperature and throttle reasons (NVML for GPUs), and the NVTX ranges
// that make an `nsys` timeline read as the run order.
namespace kwb {

class RepetitionMonitor {
public:
    virtual ~RepetitionMonitor() = default;
    // Called right before the repetition's first launch and right after its last.
    virtual void begin() = 0;
    // Fills the sample's clock_mhz, mem_clock_mhz, power_w, temperature_c, throttle_reasons and
    // throttled. Fields the monitor cannot measure stay empty.
    virtual void end(Sample& sample) = 0;
};

// Named ranges around experiments, warm-ups and repetitions (the GPU plugin's NVTX).
struct RangeTracer {
    std::function<void(const std::string&)> push;
    std::function<void()> pop;
};

} // namespace kwb
