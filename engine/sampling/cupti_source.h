// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_backend_abi.h"
#include "sampling/sample_source.h"

#include <string>
#include <vector>

namespace kwb {

// CUPTI PM sampling through the GPU backend plugin (ABI 3): the kCuptiCollected set at a GPU-time
// interval (default 1 ms), delivered as the kCuptiLanes computed from each sample. Configured at
// construction (70-380 ms, before the run), so a missing CUPTI, counters restricted to admins
// (ERR_NVGPUCTRPERM) or an unsupported GPU are known before the first repetition and explained by
// unavailable_reason().
class CuptiSource : public SampleSource {
public:
    static constexpr double kDefaultIntervalS = 1e-3;

    // `api` may be null (no plugin): the source is then unavailable with `why_no_api`.
    CuptiSource(
        const KwbGpuBackendApi* api, int device, double interval_s = kDefaultIntervalS, std::string why_no_api = {});
    ~CuptiSource() override;

    std::string name() const override { return "cupti"; }
    std::string unavailable_reason() const override { return reason_; }
    const std::vector<MetricInfo>& metrics() const override { return metrics_; }
    // Decode every 5 ms whatever the interval: the image holds 20 ms of samples, and DecodeData
    // has a fixed cost of a few ms a call (cupti-h200.md section 6).
    double poll_period_s(double) const override { return 0.005; }
    void begin() override;
    void poll(std::vector<RawReading>& out) override;
    void end(std::vector<RawReading>& out) override;
    bool first_reading_is_stale() const override { return true; }

    double interval_s() const { return interval_s_; }

private:
    void decode(std::vector<RawReading>& out);

    const KwbGpuBackendApi* api_;
    KwbPmSampler* pm_ = nullptr;
    double interval_s_;
    std::string reason_;
    std::vector<MetricInfo> metrics_;
    std::vector<KwbPmSample> buffer_;
    unsigned long long origin_ns_ = 0;
};

} // namespace kwb
