// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/descriptions/param_helpers.h"
#include "workloads/workload.h"

#include <chrono>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

// Helpers every CPU workload shares: checked parameters, seeded inputs, timing, error measures.
namespace kwb::cpu {

// Reads integer parameter `name` and checks it lies in [lo, hi]. Throws WorkloadError with one
// line that names the workload and the parameter, e.g.
// "gemm: parameter 'block' must be an integer in [1, 4096], got 0".
long long int_param(
    const nlohmann::json& params, std::string_view workload, std::string_view name, long long lo, long long hi);

// Throws WorkloadError when one buffer of `elements` floats would exceed 1 GiB: a mistyped size
// should fail with a message, not with std::bad_alloc or the machine swapping.
void check_buffer(std::string_view workload, double elements, std::string_view what);

// Throws WorkloadError unless `backend` is the CPU: the CUDA twins come with the GPU plugin.
void require_cpu(std::string_view workload, Backend backend);

// Fills `out` with uniform values in [lo, hi) from a fixed-seed generator, so a parameter set
// always measures the same inputs (and reruns of an A/B see identical data).
void fill_uniform(std::span<float> out, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// Largest |a[i] - b[i]|, and largest |b[i]| (to scale a tolerance to the reference's magnitude).
double max_abs_diff(std::span<const float> a, std::span<const float> b);
double max_abs(std::span<const float> a);

// Builds a VerifyResult: ok when error <= tolerance and neither is NaN.
VerifyResult verify_result(double max_abs_error, double tolerance, std::string_view what);

// Wall time of f() in milliseconds on the steady clock.
template<class F> double time_ms(F&& f)
{
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// Runs `iterations` timed calls of f() and returns their times in ms.
template<class F> std::vector<double> time_iterations(int iterations, F&& f)
{
    std::vector<double> ms;
    ms.reserve(static_cast<std::size_t>(iterations));
    for (int i = 0; i < iterations; ++i)
        ms.push_back(time_ms(f));
    return ms;
}

double mean(std::span<const double> values);

// True when `params` asks for the wrong-result fault.
bool wants_wrong_result(const nlohmann::json& params);

} // namespace kwb::cpu
