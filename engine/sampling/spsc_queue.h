// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <vector>

namespace kwb {

// A bounded single-producer single-consumer ring, lock-free: the producer (a decode thread) never
// waits for the consumer. push() returns false when the ring is full and the caller counts the
// loss; nothing blocks. One slot stays empty to tell full from empty.
template<class T> class SpscQueue {
public:
    explicit SpscQueue(size_t capacity)
        : slots_(capacity + 1)
    {
    }

    size_t capacity() const { return slots_.size() - 1; }

    bool push(const T& value)
    {
        const size_t head = head_.load(std::memory_order_relaxed);
        const size_t next = (head + 1) % slots_.size();
        if (next == tail_.load(std::memory_order_acquire))
            return false;
        slots_[head] = value;
        head_.store(next, std::memory_order_release);
        return true;
    }

    std::optional<T> pop()
    {
        const size_t tail = tail_.load(std::memory_order_relaxed);
        if (tail == head_.load(std::memory_order_acquire))
            return std::nullopt;
        T value = slots_[tail];
        tail_.store((tail + 1) % slots_.size(), std::memory_order_release);
        return value;
    }

private:
    std::vector<T> slots_;
    alignas(64) std::atomic<size_t> head_ {0}; // written by the producer
    alignas(64) std::atomic<size_t> tail_ {0}; // written by the consumer
};

} // namespace kwb
