// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace kwb {

// What a metric stream is called and measured in (e.g. {"dram_pct", "%"}).
struct MetricInfo {
    std::string name;
    std::string unit;
};

// One decoded value: seconds since begin(), index into metrics(), value.
struct RawReading {
    double t_s = 0;
    int metric = 0;
    double value = 0;
};

// A hardware counter source polled by QueuedSampler's decode thread: CUPTI PM sampling, NVML, or
// a scripted fake in tests. begin/poll/end are called from that one thread only.
class SampleSource {
public:
    virtual ~SampleSource() = default;
    virtual std::string name() const = 0;
    // Empty when the source can run; else one line: why not and the fix. Known before the run.
    virtual std::string unavailable_reason() const = 0;
    virtual const std::vector<MetricInfo>& metrics() const = 0;
    // How often the decode thread polls (seconds), given the period the run asked for.
    virtual double poll_period_s(double requested_period_s) const { return requested_period_s; }
    // Readings come back in time order per metric; `out` is appended to.
    virtual void begin() = 0;
    virtual void poll(std::vector<RawReading>& out) = 0;
    // Stops collection and appends what was still buffered.
    virtual void end(std::vector<RawReading>& out) = 0;
    // The first reading of each metric after begin() covers time before it (CUPTI's first PM
    // sample reaches back to the previous stop): such sources ask for it to be dropped.
    virtual bool first_reading_is_stale() const { return false; }
};

} // namespace kwb
