// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/hypothesis_tests.h"

#include "stats/descriptive.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>
#include <vector>

namespace kwb::stats {

std::optional<double> welch_p(std::span<const double> a, std::span<const double> b)
{
    if (a.size() < 2 || b.size() < 2)
        return std::nullopt;
    const double na = static_cast<double>(a.size());
    const double nb = static_cast<double>(b.size());
    const double va = std::pow(*sample_stddev(a), 2) / na; // squared standard errors
    const double vb = std::pow(*sample_stddev(b), 2) / nb;
    if (va + vb == 0)
        return std::nullopt;
    const double t = (mean(a) - mean(b)) / std::sqrt(va + vb);
    const double df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
    try {
        const boost::math::students_t dist(df);
        return std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string_view to_string(MannWhitneyMethod m)
{
    return m == MannWhitneyMethod::Exact ? "exact" : "asymptotic";
}

namespace {

// Average ranks (1-based) of the pooled sample, and the tie term sum(t^3 - t).
struct Ranks {
    std::vector<double> rank;
    double tie_term = 0;
    bool ties = false;
};

Ranks rank_pooled(std::span<const double> a, std::span<const double> b)
{
    std::vector<double> all(a.begin(), a.end());
    all.insert(all.end(), b.begin(), b.end());
    std::vector<std::size_t> order(all.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return all[i] < all[j]; });
    Ranks r;
    r.rank.resize(all.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && all[order[j + 1]] == all[order[i]])
            ++j;
        const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
        for (std::size_t k = i; k <= j; ++k)
            r.rank[order[k]] = avg;
        const double t = static_cast<double>(j - i + 1);
        if (t > 1) {
            r.ties = true;
            r.tie_term += t * t * t - t;
        }
        i = j + 1;
    }
    return r;
}

// P(U >= u) under the null for arms of m and n values without ties. The counts of U are the
// coefficients of the Gaussian binomial [m+n choose m]_q, built one factor
// (1 - q^(n+i)) / (1 - q^i) at a time so that every intermediate polynomial is itself a Gaussian
// binomial with non-negative integer coefficients.
double exact_upper_tail(std::size_t m, std::size_t n, long long u)
{
    if (m > n)
        std::swap(m, n);
    const std::size_t deg = m * n;
    std::vector<long double> c(deg + 1, 0.0L);
    c[0] = 1;
    for (std::size_t i = 1; i <= m; ++i) {
        const std::size_t up = n + i;
        for (std::size_t k = deg; k >= up; --k) // multiply by (1 - q^(n+i))
            c[k] -= c[k - up];
        for (std::size_t k = i; k <= deg; ++k) // divide by (1 - q^i)
            c[k] += c[k - i];
    }
    long double total = 0, tail = 0;
    for (std::size_t k = 0; k <= deg; ++k) {
        total += c[k];
        if (static_cast<long long>(k) >= u)
            tail += c[k];
    }
    return static_cast<double>(tail / total);
}

} // namespace

MannWhitneyResult mann_whitney(std::span<const double> a, std::span<const double> b, MannWhitneyMethod method)
{
    MannWhitneyResult res;
    res.method = method;
    const Ranks r = rank_pooled(a, b);
    const double n1 = static_cast<double>(a.size());
    const double n2 = static_cast<double>(b.size());
    double r1 = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        r1 += r.rank[i];
    res.u1 = r1 - n1 * (n1 + 1) / 2;
    const double u = std::max(res.u1, n1 * n2 - res.u1);
    double p;
    if (method == MannWhitneyMethod::Exact) {
        p = 2 * exact_upper_tail(a.size(), b.size(), std::llround(u));
    } else {
        const double n = n1 + n2;
        const double var = n1 * n2 / 12 * ((n + 1) - r.tie_term / (n * (n - 1)));
        const double num = u - n1 * n2 / 2 - 0.5; // continuity correction
        if (var <= 0) {
            p = num >= 0 ? 0.0 : 2.0; // all values tied: num = -0.5, p clipped to 1 below
        } else {
            const boost::math::normal_distribution<double> z;
            p = 2 * boost::math::cdf(boost::math::complement(z, num / std::sqrt(var)));
        }
    }
    res.p = std::clamp(p, 0.0, 1.0);
    return res;
}

MannWhitneyResult mann_whitney(std::span<const double> a, std::span<const double> b)
{
    const bool small = a.size() < 8 || b.size() < 8;
    bool ties = false;
    if (small) {
        std::vector<double> all(a.begin(), a.end());
        all.insert(all.end(), b.begin(), b.end());
        std::sort(all.begin(), all.end());
        ties = std::adjacent_find(all.begin(), all.end()) != all.end();
    }
    return mann_whitney(a, b, small && !ties ? MannWhitneyMethod::Exact : MannWhitneyMethod::Asymptotic);
}

} // namespace kwb::stats
