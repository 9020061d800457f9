// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kwb::cpu {

// A fixed set of worker threads that run one parallel loop at a time. The CPU kernels are timed
// per iteration, so the threads are started once in prepare() and reused: starting threads per
// call would add tens of microseconds per loop, which the decoder (dozens of loops per token)
// would measure instead of its arithmetic. No OpenMP, so the build has no runtime dependency.
class ThreadPool {
public:
    // `threads` counts the calling thread: ThreadPool(1) starts no worker and runs inline.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }

    // Runs fn(task, worker) for every task in [0, tasks) and returns when all have finished.
    // Tasks are handed out one at a time (dynamic scheduling), so uneven tasks such as causal
    // attention rows balance themselves. `worker` is in [0, size()): 0 is the calling thread; it
    // lets a task use per-thread scratch without locking. The first exception a task throws is
    // rethrown here after every task has finished. One loop at a time: not reentrant (a task
    // must not call for_each on its own pool) and not for concurrent callers.
    void for_each(std::size_t tasks, const std::function<void(std::size_t task, int worker)>& fn);

private:
    void worker_loop(int worker);
    void drain(int worker);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable start_cv_;
    std::condition_variable done_cv_;
    const std::function<void(std::size_t, int)>* job_ = nullptr;
    std::size_t tasks_ = 0;
    std::atomic<std::size_t> next_ {0};
    std::uint64_t generation_ = 0;
    int busy_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

} // namespace kwb::cpu
