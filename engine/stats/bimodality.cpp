// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/bimodality.h"

#include "stats/descriptive.h"
#include "stats/percentile.h"

#include <algorithm>
#include <cmath>

namespace kwb::stats {

Bimodality assess_bimodality(std::span<const double> values)
{
    Bimodality out;
    const std::size_t n = values.size();
    if (n < kBimodalMinN)
        return out;
    std::vector<double> v(values.begin(), values.end());
    std::sort(v.begin(), v.end());
    out.bimodal = false;
    if (v.front() == v.back())
        return out; // all equal: one mode

    // The largest gap between neighbours; on equal gaps the one nearest the low end wins.
    std::size_t cut = 0; // the low side is v[0..cut]
    double gap = -1;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const double g = v[i + 1] - v[i];
        if (g > gap) {
            gap = g;
            cut = i;
        }
    }
    const std::span<const double> low(v.data(), cut + 1);
    const std::span<const double> high(v.data() + cut + 1, n - cut - 1);
    const auto side_ss = [](std::span<const double> s) { // (n_side - 1) * s_side^2, 0 for one value
        const auto sd = sample_stddev(s);
        return sd ? static_cast<double>(s.size() - 1) * *sd * *sd : 0.0;
    };
    out.gap = gap;
    out.n_low = low.size();
    out.n_high = high.size();
    out.pooled_sd = std::sqrt((side_ss(low) + side_ss(high)) / static_cast<double>(n - 2));

    const std::size_t m = std::max<std::size_t>(2, (15 * n + 99) / 100); // max(2, ceil(0.15 n)), exactly
    // The resolution floor: a gap under 1% of the median |value| cannot move a decision whose
    // lines are at 5% and 10%, and is often the timer's own tick (0.247 vs 0.248 ms).
    std::vector<double> magnitudes(v.size());
    std::transform(v.begin(), v.end(), magnitudes.begin(), [](double x) { return std::fabs(x); });
    const double floor = kBimodalGapFloor * percentile(std::move(magnitudes), 50);
    if (out.n_low < m || out.n_high < m || !(gap > 6 * out.pooled_sd) || gap < floor)
        return out;

    out.bimodal = true;
    const Mode lo {static_cast<double>(out.n_low) / static_cast<double>(n), mean(low)};
    const Mode hi {static_cast<double>(out.n_high) / static_cast<double>(n), mean(high)};
    if (hi.share > lo.share)
        out.modes = {hi, lo};
    else
        out.modes = {lo, hi};
    return out;
}

} // namespace kwb::stats
