// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/cupti_source.h"

#include "sampling/cupti_metrics.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kwb {

CuptiSource::CuptiSource(const KwbGpuBackendApi* api, int device, double interval_s, std::string why_no_api)
    : api_(api)
    , interval_s_(interval_s)
    , buffer_(256)
{
    for (const auto& m : kCuptiLanes)
        metrics_.push_back({std::string(m.lane), std::string(m.unit)});
    if (!api_) {
        reason_ = why_no_api.empty() ? "no GPU backend plugin" : why_no_api;
        return;
    }
    if (!api_->pm_open) {
        reason_ = "the GPU backend plugin has no CUPTI entries";
        return;
    }
    if (const char* status = api_->cupti_status(device); status && *status) {
        reason_ = status;
        return;
    }
    nlohmann::json names = nlohmann::json::array();
    for (const auto& m : kCuptiCollected)
        names.push_back(std::string(m));
    const char* error = nullptr;
    const auto interval_ns = static_cast<unsigned long long>(interval_s * 1e9);
    pm_ = api_->pm_open(device, names.dump().c_str(), interval_ns, &error);
    if (!pm_)
        reason_ = error ? error : "CUPTI PM sampling could not be configured";
}

CuptiSource::~CuptiSource()
{
    if (pm_)
        api_->pm_close(pm_);
}

void CuptiSource::begin()
{
    if (!pm_)
        throw std::runtime_error(reason_);
    origin_ns_ = api_->gpu_timestamp_ns();
    const char* error = nullptr;
    if (api_->pm_start(pm_, &error) != 0)
        throw std::runtime_error(error ? error : "cuptiPmSamplingStart failed");
}

void CuptiSource::decode(std::vector<RawReading>& out)
{
    for (;;) {
        const char* error = nullptr;
        const int n = api_->pm_decode(pm_, buffer_.data(), static_cast<int>(buffer_.size()), &error);
        if (n < 0)
            throw std::runtime_error(error ? error : "cuptiPmSamplingDecodeData failed");
        for (int i = 0; i < n; ++i) {
            const auto& s = buffer_[static_cast<size_t>(i)];
            // The middle of the sample's window, from the moment sampling started.
            const double mid_ns = 0.5 * static_cast<double>(s.start_ns) + 0.5 * static_cast<double>(s.end_ns);
            const double t = (mid_ns - static_cast<double>(origin_ns_)) * 1e-9;
            const auto lanes = cupti_lane_values(s.values);
            for (size_t m = 0; m < lanes.size(); ++m)
                out.push_back({t, static_cast<int>(m), lanes[m]});
        }
        if (n < static_cast<int>(buffer_.size()))
            return;
    }
}

void CuptiSource::poll(std::vector<RawReading>& out)
{
    decode(out);
}

void CuptiSource::end(std::vector<RawReading>& out)
{
    const char* error = nullptr;
    if (api_->pm_stop(pm_, &error) != 0)
        throw std::runtime_error(error ? error : "cuptiPmSamplingStop failed");
    decode(out);
}

} // namespace kwb
