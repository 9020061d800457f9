// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/bootstrap.h"

#include "stats/descriptive.h"
#include "stats/effect.h"

#include <algorithm>
#include <random>
#include <vector>

namespace kwb::stats {
namespace {

__extension__ typedef unsigned __int128 u128;   // GCC and Clang; __extension__ keeps -Wpedantic quiet

// An index in [0, n) from one 64-bit draw (Lemire's multiply-shift; the bias is below 2^-50 for
// any n a study can have).
inline std::size_t draw_index(std::mt19937_64& rng, std::size_t n)
{
    return static_cast<std::size_t>((static_cast<u128>(rng()) * n) >> 64);
}

} // namespace

double resampled_mean(std::mt19937_64& rng, std::span<const double> values)
{
    double sum = 0;
    const std::size_t n = values.size();
    for (std::size_t i = 0; i < n; ++i)
        sum += values[draw_index(rng, n)];
    return sum / static_cast<double>(n);
}

Interval central_95(std::vector<double>& stats)
{
    std::sort(stats.begin(), stats.end());
    return {percentile_sorted(stats, 2.5), percentile_sorted(stats, 97.5)};
}

std::optional<Interval> bootstrap_delta_ci(std::span<const double> baseline, std::span<const double> treatment,
                                           Direction direction, int resamples, std::uint64_t seed)
{
    if (baseline.size() < 2 || treatment.size() < 2 || resamples < 1)
        return std::nullopt;
    std::mt19937_64 rng(seed);
    std::vector<double> deltas(static_cast<std::size_t>(resamples));
    for (double& d : deltas) {
        const double mb = resampled_mean(rng, baseline);
        const double mt = resampled_mean(rng, treatment);
        d = delta_pct(mb, mt, direction);
    }
    return central_95(deltas);
}

std::optional<Interval> bootstrap_mean_ci(std::span<const double> values, int resamples, std::uint64_t seed)
{
    if (values.size() < 2 || resamples < 1)
        return std::nullopt;
    std::mt19937_64 rng(seed);
    std::vector<double> means(static_cast<std::size_t>(resamples));
    for (double& m : means)
        m = resampled_mean(rng, values);
    return central_95(means);
}

} // namespace kwb::stats
