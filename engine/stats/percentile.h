// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one percentile and the one pair of Tukey fences of the code base: the verdict's arm summary,
// the window's box plots, the report's charts, the machine-load check, the serving workloads' p50
// and p99 (on the CPU and, through this header, in the GPU plugin) and the plugin's calibration all
// use these, so a p99 or an outlier means the same thing wherever it is shown.
//
// Percentiles use numpy's default ("linear": interpolation between the closest ranks), so numbers
// agree with what an engineer recomputes in a notebook. q is in percent, 0 to 100, everywhere.
// Header-only and C++17 (the GPU plugin compiles with nvcc at C++17 and includes it without linking
// the engine): `Sorted` is any contiguous range of doubles with size() and [] (a vector, a span).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace kwb::stats {

// Percentile q in [0, 100] of already sorted values; NaN when `sorted` is empty.
template<typename Sorted> double percentile_sorted(const Sorted& sorted, double q)
{
    const std::size_t n = static_cast<std::size_t>(sorted.size());
    if (n == 0)
        return std::nan("");
    const double h = (static_cast<double>(n) - 1) * std::clamp(q, 0.0, 100.0) / 100.0;
    const double lo_f = std::floor(h);
    const auto lo = static_cast<std::size_t>(lo_f);
    if (lo + 1 >= n)
        return sorted[n - 1];
    const double frac = h - lo_f;
    const double a = sorted[lo];
    const double b = sorted[lo + 1];
    // numpy's lerp: exact at both ends and monotone.
    return frac >= 0.5 ? b - (b - a) * (1 - frac) : a + (b - a) * frac;
}

// The same on unsorted values (sorts a copy).
inline double percentile(std::vector<double> values, double q)
{
    std::sort(values.begin(), values.end());
    return percentile_sorted(values, q);
}

// Tukey's fences around the middle half: a value beyond `mild_low`/`mild_high` lies more than
// 1.5 IQR outside the quartiles, beyond `extreme_low`/`extreme_high` more than 3 IQR.
struct TukeyFences {
    double q1 = 0;
    double q3 = 0;
    double mild_low = 0;
    double mild_high = 0;
    double extreme_low = 0;
    double extreme_high = 0;
    bool mild(double v) const { return v < mild_low || v > mild_high; }
    bool extreme(double v) const { return v < extreme_low || v > extreme_high; }
};

// Of already sorted, non-empty values.
template<typename Sorted> TukeyFences tukey_fences_sorted(const Sorted& sorted)
{
    TukeyFences f;
    f.q1 = percentile_sorted(sorted, 25);
    f.q3 = percentile_sorted(sorted, 75);
    const double iqr = f.q3 - f.q1;
    f.mild_low = f.q1 - 1.5 * iqr;
    f.mild_high = f.q3 + 1.5 * iqr;
    f.extreme_low = f.q1 - 3.0 * iqr;
    f.extreme_high = f.q3 + 3.0 * iqr;
    return f;
}

} // namespace kwb::stats
