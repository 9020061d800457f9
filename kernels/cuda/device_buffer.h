// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Owning device memory, filled with seeded random values (never zeros: a kernel that writes
// nothing must not pass) and poisoned with NaN before a check.
#include "cuda_check.h"

#include <cstddef>
#include <cstdint>
#include <cuda_bf16.h>
#include <utility>

namespace kwb::cuda {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes)
        : bytes_(bytes)
    {
        if (bytes)
            KWB_CUDA(cudaMalloc(&ptr_, bytes));
    }
    ~DeviceBuffer()
    {
        if (ptr_)
            cudaFree(ptr_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr))
        , bytes_(o.bytes_)
    {
    }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept
    {
        std::swap(ptr_, o.ptr_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    template<typename T> T* as() const { return static_cast<T*>(ptr_); }
    std::size_t bytes() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

// Uniform values in [lo, hi) from a counter hash of (seed, index): the same seed gives the same data.
void fill_random(float* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream);
void fill_random(__nv_bfloat16* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream);

// All bits set: NaN in fp32 and bf16, so an element the kernel failed to write fails the check.
void poison(DeviceBuffer& buffer, cudaStream_t stream);

// The largest differences between an output and its reference, over every element.
struct Comparison {
    double max_abs_error = 0;
    double max_rel_error = 0; // |out - ref| / max(|ref|, rel_floor)
    unsigned long long mismatches = 0; // elements outside atol + rtol * max(|ref|, rel_floor) (NaN included)
};
Comparison compare(const float* out, const float* ref, std::size_t count, double atol, double rtol, double rel_floor,
    cudaStream_t stream);
Comparison compare(const __nv_bfloat16* out, const float* ref, std::size_t count, double atol, double rtol,
    double rel_floor, cudaStream_t stream);

} // namespace kwb::cuda
