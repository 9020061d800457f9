// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/sequential_ci.h"

#include "stats/descriptive.h"
#include "stats/effect.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numbers>

namespace kwb {

double look_alpha(double alpha, int look)
{
    const double k = std::max(look, 1);
    return alpha * 6.0 / (std::numbers::pi * std::numbers::pi * k * k);
}

namespace {

// One-sided: the t value exceeded with probability alpha_k.
double t_quantile(double df, double alpha_k)
{
    const boost::math::students_t t(df);
    return boost::math::quantile(boost::math::complement(t, alpha_k));
}

} // namespace

std::optional<SequentialInterval> sequential_interval(const std::vector<double>& baseline,
    const std::vector<double>& treatment, bool paired, Direction direction, double alpha_lower_k, double alpha_upper_k)
{
    if (baseline.size() < 3 || treatment.size() < 3)
        return std::nullopt;
    SequentialInterval out;
    out.level = 1 - alpha_lower_k;
    if (paired && baseline.size() == treatment.size()) {
        std::vector<double> d;
        d.reserve(baseline.size());
        for (std::size_t i = 0; i < baseline.size(); ++i)
            d.push_back(stats::delta_pct(baseline[i], treatment[i], direction));
        const double n = static_cast<double>(d.size());
        const double m = stats::mean(d);
        const double sd = stats::sample_stddev(d).value_or(0.0);
        const double se = sd / std::sqrt(n);
        out.delta_pct = m;
        out.interval = {m - t_quantile(n - 1, alpha_lower_k) * se, m + t_quantile(n - 1, alpha_upper_k) * se};
        out.paired = true;
        return out;
    }
    // Unpaired: delta% = +-100 (r - 1) with r = mean_T / mean_B; its standard error by the delta
    // method, with the smaller arm's degrees of freedom (conservative against Welch's).
    const double nb = static_cast<double>(baseline.size());
    const double nt = static_cast<double>(treatment.size());
    const double mb = stats::mean(baseline);
    const double mt = stats::mean(treatment);
    const double sb = stats::sample_stddev(baseline).value_or(0.0);
    const double st = stats::sample_stddev(treatment).value_or(0.0);
    const double r = mt / mb;
    const double se_r = r * std::sqrt(st * st / (nt * mt * mt) + sb * sb / (nb * mb * mb));
    const double df = std::min(nb, nt) - 1;
    out.delta_pct = stats::delta_pct(mb, mt, direction);
    out.interval = {out.delta_pct - 100 * t_quantile(df, alpha_lower_k) * se_r,
        out.delta_pct + 100 * t_quantile(df, alpha_upper_k) * se_r};
    return out;
}

} // namespace kwb
