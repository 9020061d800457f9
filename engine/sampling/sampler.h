// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <string>

namespace kwb {

// One reading of a live metric: seconds since the experiment started, name, value, unit.
struct MetricReading {
    double t_s = 0;
    std::string name;
    double value = 0;
    std::string unit;
};

using MetricSink = std::function<void(const MetricReading&)>;

// A source of live metrics while an experiment runs (procfs for the CPU, NVML and CUPTI PM
// sampling for GPUs). start() begins delivering readings to the sink from the sampler's own
// thread; stop() ends delivery and returns only once the sink will not be called again.
class Sampler {
public:
    virtual ~Sampler() = default;
    virtual std::string name() const = 0;
    // Empty when the sampler can run here; otherwise the one-line reason it cannot.
    virtual std::string unavailable_reason() const = 0;
    virtual void start(MetricSink sink, double period_s) = 0;
    virtual void stop() = 0;
};

} // namespace kwb
