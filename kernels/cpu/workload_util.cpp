// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/workload_util.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace kwb::cpu {

long long int_param(
    const nlohmann::json& params, std::string_view workload, std::string_view name, long long lo, long long hi)
{
    const auto it = params.find(name);
    if (it == params.end())
        throw WorkloadError(fmt::format("{}: parameter '{}' is missing", workload, name));
    const auto whole = whole_number(*it);
    if (!whole)
        throw WorkloadError(fmt::format(
            "{}: parameter '{}' must be an integer in [{}, {}], got {}", workload, name, lo, hi, it->dump()));
    const long long x = *whole;
    if (x < lo || x > hi)
        throw WorkloadError(
            fmt::format("{}: parameter '{}' must be an integer in [{}, {}], got {}", workload, name, lo, hi, x));
    return x;
}

void check_buffer(std::string_view workload, double elements, std::string_view what)
{
    constexpr double kMaxBytes = 1024.0 * 1024 * 1024;
    if (elements * sizeof(float) > kMaxBytes)
        throw WorkloadError(fmt::format("{}: {} would need {:.1f} GiB; the limit is 1 GiB per buffer", workload, what,
            elements * sizeof(float) / kMaxBytes));
}

void require_cpu(std::string_view workload, Backend backend)
{
    if (backend != Backend::Cpu)
        throw WorkloadError(
            fmt::format("{}: the {} backend is not built yet (only cpu)", workload, to_string(backend)));
}

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi)
{
    // SplitMix64 with its bits mapped by hand: the same inputs whichever standard library built
    // kwb (std::uniform_real_distribution's algorithm is unspecified), and about a nanosecond a
    // value, so seeding the 3 x 128 MiB of the largest triad takes a fraction of a second.
    std::uint64_t state = seed;
    const float scale = (hi - lo) / 16777216.0f; // 2^24: the top 24 bits fill a float exactly
    for (auto& x : out) {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        x = lo + static_cast<float>(z >> 40) * scale;
    }
}

double max_abs_diff(std::span<const float> a, std::span<const float> b)
{
    double m = a.size() == b.size() ? 0.0 : INFINITY;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        const double d = std::abs(static_cast<double>(a[i]) - b[i]);
        if (!(d <= m)) // also catches NaN, which must never pass
            m = std::isnan(d) ? INFINITY : d;
    }
    return m;
}

double max_abs(std::span<const float> a)
{
    double m = 0;
    for (float x : a)
        m = std::max(m, static_cast<double>(std::abs(x)));
    return m;
}

VerifyResult verify_result(double max_abs_error, double tolerance, std::string_view what)
{
    VerifyResult r;
    r.max_abs_error = max_abs_error;
    r.tolerance = tolerance;
    r.ok = max_abs_error <= tolerance;
    r.detail
        = fmt::format("{}: max |error| {:.3g} {} tolerance {:.3g}", what, max_abs_error, r.ok ? "<=" : ">", tolerance);
    return r;
}

double mean(std::span<const double> values)
{
    if (values.empty())
        return 0;
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

bool wants_wrong_result(const nlohmann::json& params)
{
    return params.value("inject_fault", std::string("none")) == "wrong-result";
}

} // namespace kwb::cpu
