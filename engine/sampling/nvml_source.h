// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/nvml.h"
#include "sampling/sample_source.h"

#include <optional>

namespace kwb {

// NVML readings of one GPU, polled at the run's sampler period (three NVML calls cost ~18 us):
//   nvml_sm_clock, mem_clock (MHz), temperature (C), power (W), memory_used (MiB),
//   clock_events (the clock-event reason bits; nonzero power/thermal bits = capped),
//   other_gpu_processes (compute processes on the GPU other than this one and those it started:
//   "another process used the GPU during the run", which makes the verdict INCONCLUSIVE,
//   verdict/gpu_sharing.h).
// NVML's SM clock reads high under tensor load (cupti-h200.md 3.5): the CUPTI sm_clock lane is
// the one to trust when both exist; this one is named nvml_sm_clock to keep them apart.
// The pids of the compute processes on `device` that are neither this process nor one it started
// (a worker, a command arm and whatever they spawned have this process among their ancestors).
std::vector<unsigned> foreign_compute_processes(const nvml::Device& device);

class NvmlSource : public SampleSource {
public:
    // `uuid` matches the CUDA device ("GPU-..."); empty: NVML device 0.
    explicit NvmlSource(const std::string& uuid);

    std::string name() const override { return "nvml"; }
    std::string unavailable_reason() const override { return reason_; }
    const std::vector<MetricInfo>& metrics() const override { return metrics_; }
    void begin() override;
    void poll(std::vector<RawReading>& out) override;
    void end(std::vector<RawReading>& out) override { poll(out); }

    // The largest count of other processes seen since begin().
    int max_other_processes() const { return max_other_; }

private:
    std::optional<nvml::Device> device_;
    std::string reason_;
    std::vector<MetricInfo> metrics_;
    double t0_ = 0;
    int max_other_ = 0;
};

} // namespace kwb
