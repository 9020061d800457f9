// SPDX-License-Identifier: GPL-3.0-or-later
#include "timing_harness.h"

namespace kwb::cuda {

TimingHarness::TimingHarness(int device)
{
    KWB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    int l2_bytes = 0;
    KWB_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    // Twice the L2: a write of exactly its size can leave lines of the workload resident where
    // the replacement policy is not strict LRU.
    l2_flush_ = DeviceBuffer(2 * static_cast<std::size_t>(l2_bytes > 0 ? l2_bytes : 1 << 20));
}

TimingHarness::~TimingHarness()
{
    for (auto e : events_)
        cudaEventDestroy(e);
    if (stream_)
        cudaStreamDestroy(stream_);
}

void TimingHarness::flush_l2()
{
    KWB_CUDA(cudaMemsetAsync(l2_flush_.as<void>(), 0, l2_flush_.bytes(), stream_));
}

Timing TimingHarness::time(GpuWorkload& workload, int launches, bool cold)
{
    if (launches < 1)
        throw ConfigError("run: the launch count must be at least 1, got " + std::to_string(launches));
    const std::size_t pairs = cold ? static_cast<std::size_t>(launches) : 1;
    while (events_.size() < 2 * pairs) {
        cudaEvent_t e;
        KWB_CUDA(cudaEventCreate(&e));
        events_.push_back(e);
    }
    if (!cold) {
        KWB_CUDA(cudaEventRecord(events_[0], stream_));
        for (int i = 0; i < launches; ++i) {
            workload.launch(stream_);
            KWB_CUDA_LAUNCHED("launch");
        }
        KWB_CUDA(cudaEventRecord(events_[1], stream_));
    } else {
        for (int i = 0; i < launches; ++i) {
            flush_l2();
            KWB_CUDA(cudaEventRecord(events_[2 * i], stream_));
            workload.launch(stream_);
            KWB_CUDA_LAUNCHED("launch");
            KWB_CUDA(cudaEventRecord(events_[2 * i + 1], stream_));
        }
    }
    KWB_CUDA(cudaStreamSynchronize(stream_));
    Timing timing {0.0, launches};
    for (std::size_t p = 0; p < pairs; ++p) {
        float ms = 0;
        KWB_CUDA(cudaEventElapsedTime(&ms, events_[2 * p], events_[2 * p + 1]));
        timing.total_ms += ms;
    }
    return timing;
}

} // namespace kwb::cuda
