// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/bootstrap.h"

#include "stats/descriptive.h"
#include "stats/effect.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace kwb::stats {
namespace {

__extension__ typedef unsigned __int128 u128; // GCC and Clang; __extension__ keeps -Wpedantic quiet

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

// A standard normal draw by Box-Muller from two 53-bit uniforms: no implementation-defined
// distribution, so the large-n interval is the same on every platform too.
inline double normal_draw(std::mt19937_64& rng)
{
    constexpr double kTwoPi = 6.283185307179586476925;
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53; // (0, 1]
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53; // [0, 1)
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

// What resampled_mean() converges to for large n (central limit theorem): a normal around the
// sample mean with the bootstrap's own spread, sd / sqrt(n) with the n denominator (a resample
// draws from the sample itself). Costs O(n) once instead of O(n) per resample.
struct MeanLaw {
    double mean = 0;
    double se = 0;
};

MeanLaw mean_law(std::span<const double> values)
{
    const double n = static_cast<double>(values.size());
    double m = 0;
    for (const double v : values)
        m += v;
    m /= n;
    double ss = 0;
    for (const double v : values)
        ss += (v - m) * (v - m);
    return {m, std::sqrt(ss / n) / std::sqrt(n)};
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
    if (std::max(baseline.size(), treatment.size()) > kExactBootstrapMaxN) {
        const MeanLaw b = mean_law(baseline), t = mean_law(treatment);
        for (double& d : deltas) {
            const double mb = b.mean + b.se * normal_draw(rng);
            const double mt = t.mean + t.se * normal_draw(rng);
            d = delta_pct(mb, mt, direction);
        }
        return central_95(deltas);
    }
    return bootstrap_delta_ci_exact(baseline, treatment, direction, resamples, seed);
}

std::optional<Interval> bootstrap_delta_ci_exact(std::span<const double> baseline, std::span<const double> treatment,
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
    if (values.size() > kExactBootstrapMaxN) {
        const MeanLaw law = mean_law(values);
        for (double& m : means)
            m = law.mean + law.se * normal_draw(rng);
        return central_95(means);
    }
    for (double& m : means)
        m = resampled_mean(rng, values);
    return central_95(means);
}

} // namespace kwb::stats
