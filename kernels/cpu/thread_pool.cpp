// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/thread_pool.h"

#include <utility>

namespace kwb::cpu {

ThreadPool::ThreadPool(int threads)
{
    for (int w = 1; w < threads; ++w)
        workers_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    start_cv_.notify_all();
    for (auto& t : workers_)
        t.join();
}

void ThreadPool::for_each(std::size_t tasks, const std::function<void(std::size_t, int)>& fn)
{
    // One task or no workers: waking threads would only add latency.
    if (workers_.empty() || tasks <= 1) {
        for (std::size_t t = 0; t < tasks; ++t)
            fn(t, 0);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        job_ = &fn;
        tasks_ = tasks;
        next_.store(0, std::memory_order_relaxed);
        busy_ = static_cast<int>(workers_.size());
        error_ = nullptr;
        ++generation_;
    }
    start_cv_.notify_all();
    drain(0);
    std::exception_ptr error;
    {
        std::unique_lock lock(mutex_);
        done_cv_.wait(lock, [this] { return busy_ == 0; });
        job_ = nullptr;
        error = std::exchange(error_, nullptr);
    }
    if (error)
        std::rethrow_exception(error);
}

void ThreadPool::worker_loop(int worker)
{
    std::uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_)
                return;
            seen = generation_;
        }
        drain(worker);
        std::lock_guard lock(mutex_);
        if (--busy_ == 0)
            done_cv_.notify_one();
    }
}

void ThreadPool::drain(int worker)
{
    // job_ and tasks_ were written under the mutex before the generation changed, and every
    // reader took that mutex after, so they are visible here without further fences.
    for (std::size_t t = next_.fetch_add(1, std::memory_order_relaxed); t < tasks_;
         t = next_.fetch_add(1, std::memory_order_relaxed)) {
        try {
            (*job_)(t, worker);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_)
                error_ = std::current_exception();
        }
    }
}

} // namespace kwb::cpu
