// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/queued_sampler.h"

#include <chrono>
#include <fmt/format.h>

namespace kwb {

QueuedSampler::QueuedSampler(std::unique_ptr<SampleSource> source, size_t queue_capacity)
    : source_(std::move(source))
    , queue_(queue_capacity)
{
}

QueuedSampler::~QueuedSampler()
{
    stop();
}

std::string QueuedSampler::error() const
{
    std::lock_guard lock(mutex_);
    return error_;
}

std::vector<std::string> QueuedSampler::limitations() const
{
    std::vector<std::string> out;
    if (overflow() > 0)
        out.push_back(fmt::format("{} sampler: {} of {} readings lost to a full queue", name(), overflow(), decoded()));
    if (const auto why = error(); !why.empty())
        out.push_back(fmt::format("{} sampler stopped: {}", name(), why));
    return out;
}

void QueuedSampler::start(MetricSink sink, double period_s)
{
    stop();
    {
        std::lock_guard lock(mutex_);
        stopping_ = false;
    }
    decoding_done_ = false;
    decoder_ = std::thread([this, period_s] { decode_loop(period_s); });
    deliverer_ = std::thread([this, sink = std::move(sink)] { deliver_loop(sink); });
}

void QueuedSampler::stop()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (decoder_.joinable())
        decoder_.join();
    if (deliverer_.joinable())
        deliverer_.join();
}

void QueuedSampler::push_all(std::vector<RawReading>& batch, std::vector<bool>& seen)
{
    for (const auto& r : batch) {
        if (r.metric < 0 || static_cast<size_t>(r.metric) >= seen.size())
            continue;
        if (!seen[static_cast<size_t>(r.metric)]) {
            seen[static_cast<size_t>(r.metric)] = true;
            if (source_->first_reading_is_stale())
                continue;
        }
        ++decoded_;
        if (!queue_.push(r))
            ++overflow_;
    }
    batch.clear();
}

void QueuedSampler::decode_loop(double period_s)
{
    std::vector<bool> seen(source_->metrics().size(), false);
    std::vector<RawReading> batch;
    const auto period = std::chrono::duration<double>(source_->poll_period_s(period_s));
    try {
        source_->begin();
        for (;;) {
            {
                std::unique_lock lock(mutex_);
                if (wake_.wait_for(lock, period, [this] { return stopping_; }))
                    break;
            }
            source_->poll(batch);
            ++polls_;
            push_all(batch, seen);
        }
        source_->end(batch);
        push_all(batch, seen);
    } catch (const std::exception& ex) {
        std::lock_guard lock(mutex_);
        error_ = ex.what();
    }
    decoding_done_ = true;
}

void QueuedSampler::deliver_loop(MetricSink sink)
{
    const auto& metrics = source_->metrics();
    for (;;) {
        // Read the flag before draining: whatever the decoder pushed before it finished is seen.
        const bool done = decoding_done_.load();
        bool any = false;
        while (auto r = queue_.pop()) {
            any = true;
            const auto& m = metrics[static_cast<size_t>(r->metric)];
            sink(MetricReading {r->t_s, m.name, r->value, m.unit});
        }
        if (done)
            return;
        if (!any)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

} // namespace kwb
