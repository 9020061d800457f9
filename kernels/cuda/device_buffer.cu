// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_buffer.h"

#include <cfloat>

namespace kwb::cuda {
namespace {

__device__ __forceinline__ float uniform(std::uint64_t seed, std::size_t i, float lo, float hi)
{
    // splitmix64 of the index and seed: independent of the launch shape.
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

template<typename T> __global__ void fill_kernel(T* data, std::size_t count, std::uint64_t seed, float lo, float hi)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = static_cast<T>(uniform(seed, i, lo, hi));
}

__device__ __forceinline__ float to_float(float v)
{
    return v;
}
__device__ __forceinline__ float to_float(__nv_bfloat16 v)
{
    return __bfloat162float(v);
}

struct CompareResult {
    unsigned int max_abs_bits;
    unsigned int max_rel_bits;
    unsigned long long mismatches;
};

// Non-negative floats order like their bit patterns, so atomicMax on the bits is a float max;
// NaN (0x7fc00000 and up) sorts above infinity and so is never lost.
template<typename T>
__global__ void compare_kernel(
    const T* out, const float* ref, std::size_t count, float atol, float rtol, float rel_floor, CompareResult* result)
{
    unsigned int abs_bits = 0, rel_bits = 0;
    unsigned long long bad = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const float r = ref[i];
        float diff = fabsf(to_float(out[i]) - r);
        if (isnan(diff))
            diff = __int_as_float(0x7fffffff);
        const float rel = diff / fmaxf(fabsf(r), rel_floor);
        abs_bits = max(abs_bits, __float_as_uint(diff));
        rel_bits = max(rel_bits, __float_as_uint(rel));
        if (!(diff <= atol + rtol * fmaxf(fabsf(r), rel_floor)))
            ++bad;
    }
    atomicMax(&result->max_abs_bits, abs_bits);
    atomicMax(&result->max_rel_bits, rel_bits);
    if (bad)
        atomicAdd(&result->mismatches, bad);
}

unsigned grid_for(std::size_t count)
{
    const std::size_t blocks = (count + 255) / 256;
    return static_cast<unsigned>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

double finite_or_max(unsigned int bits)
{
    float v;
    static_assert(sizeof v == sizeof bits);
    __builtin_memcpy(&v, &bits, sizeof v);
    // JSON has no NaN or infinity: an unwritten element reads as the largest float.
    return (v <= FLT_MAX) ? double(v) : double(FLT_MAX);
}

template<typename T>
Comparison compare_impl(
    const T* out, const float* ref, std::size_t count, double atol, double rtol, double rel_floor, cudaStream_t stream)
{
    DeviceBuffer result(sizeof(CompareResult));
    KWB_CUDA(cudaMemsetAsync(result.as<void>(), 0, sizeof(CompareResult), stream));
    compare_kernel<<<grid_for(count), 256, 0, stream>>>(
        out, ref, count, float(atol), float(rtol), float(rel_floor), result.as<CompareResult>());
    KWB_CUDA_LAUNCHED("compare");
    CompareResult host {};
    KWB_CUDA(cudaMemcpyAsync(&host, result.as<void>(), sizeof host, cudaMemcpyDeviceToHost, stream));
    KWB_CUDA(cudaStreamSynchronize(stream));
    return {finite_or_max(host.max_abs_bits), finite_or_max(host.max_rel_bits), host.mismatches};
}

} // namespace

void fill_random(float* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream)
{
    fill_kernel<<<grid_for(count), 256, 0, stream>>>(data, count, seed, lo, hi);
    KWB_CUDA_LAUNCHED("fill_random");
}

void fill_random(__nv_bfloat16* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream)
{
    fill_kernel<<<grid_for(count), 256, 0, stream>>>(data, count, seed, lo, hi);
    KWB_CUDA_LAUNCHED("fill_random");
}

void poison(DeviceBuffer& buffer, cudaStream_t stream)
{
    KWB_CUDA(cudaMemsetAsync(buffer.as<void>(), 0xff, buffer.bytes(), stream));
}

Comparison compare(const float* out, const float* ref, std::size_t count, double atol, double rtol, double rel_floor,
    cudaStream_t stream)
{
    return compare_impl(out, ref, count, atol, rtol, rel_floor, stream);
}

Comparison compare(const __nv_bfloat16* out, const float* ref, std::size_t count, double atol, double rtol,
    double rel_floor, cudaStream_t stream)
{
    return compare_impl(out, ref, count, atol, rtol, rel_floor, stream);
}

} // namespace kwb::cuda
