// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sampling/sample_source.h"
#include "sampling/sampler.h"
#include "sampling/spsc_queue.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kwb {

// A Sampler over a SampleSource with two threads, so a slow consumer never stalls decoding and
// decoding never stalls the run:
//   decode thread:   source.poll() every poll period -> bounded lock-free SPSC queue
//                    (a full queue drops the reading and counts it: overflow());
//   delivery thread: queue -> sink (the runner's sink takes the runner's lock; it may wait, the
//                    decode thread does not).
// The first reading of each metric after start() is dropped when the source says it is stale.
class QueuedSampler : public Sampler {
public:
    static constexpr size_t kDefaultQueueCapacity = 1 << 16;

    explicit QueuedSampler(std::unique_ptr<SampleSource> source, size_t queue_capacity = kDefaultQueueCapacity);
    ~QueuedSampler() override;

    std::string name() const override { return source_->name(); }
    std::string unavailable_reason() const override { return source_->unavailable_reason(); }
    void start(MetricSink sink, double period_s) override;
    void stop() override;

    // Readings lost because the queue was full, since construction.
    unsigned long long overflow() const { return overflow_.load(); }
    // Readings decoded (delivered or lost) and polls made, since construction.
    unsigned long long decoded() const { return decoded_.load(); }
    unsigned long long polls() const { return polls_.load(); }
    // An error the source threw on the decode thread (decoding stops; the run goes on).
    std::string error() const;
    // What the run must be told about this sampler, one line each: readings lost to a full queue
    // ("cupti sampler: 12 of 4000 readings lost to a full queue") and a decode error. Stamped on
    // the experiment's limitations by kwb run.
    std::vector<std::string> limitations() const;

    SampleSource& source() { return *source_; }

private:
    void decode_loop(double period_s);
    void deliver_loop(MetricSink sink);
    void push_all(std::vector<RawReading>& batch, std::vector<bool>& seen);

    std::unique_ptr<SampleSource> source_;
    SpscQueue<RawReading> queue_;
    std::thread decoder_;
    std::thread deliverer_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::atomic<bool> decoding_done_ {false};
    std::atomic<unsigned long long> overflow_ {0};
    std::atomic<unsigned long long> decoded_ {0};
    std::atomic<unsigned long long> polls_ {0};
    std::string error_;
};

} // namespace kwb
