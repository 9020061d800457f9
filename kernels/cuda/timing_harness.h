// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One repetition of a workload: `launches` launches on the workload's own (non-default) stream,
// timed with CUDA events. Hot: one event pair around all launches. Cold: before each launch a
// write over an L2-sized buffer evicts the workload's data (outside the timed region, as nvbench
// does), and each launch has its own event pair; the per-launch times are summed.
#include "device_buffer.h"
#include "gpu_workload.h"

namespace kwb::cuda {

struct Timing {
    double total_ms = 0;
    int launches = 0;
};

class TimingHarness {
public:
    explicit TimingHarness(int device);
    ~TimingHarness();
    TimingHarness(const TimingHarness&) = delete;
    TimingHarness& operator=(const TimingHarness&) = delete;

    cudaStream_t stream() const { return stream_; }
    Timing time(GpuWorkload& workload, int launches, bool cold);

private:
    void flush_l2();
    cudaStream_t stream_ = nullptr;
    DeviceBuffer l2_flush_;
    std::vector<cudaEvent_t> events_; // 2 per launch in cold mode, grown on demand
};

} // namespace kwb::cuda
