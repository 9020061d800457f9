// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/clopper_pearson.h"

#include <boost/math/distributions/beta.hpp>
#include <fmt/format.h>
#include <stdexcept>

namespace kwb::stats {

std::array<double, 2> clopper_pearson(int k, int n, double level)
{
    if (n < 1 || k < 0 || k > n || !(level > 0 && level < 1))
        throw std::invalid_argument(fmt::format(
            "clopper_pearson: needs 0 <= k <= n, n >= 1, 0 < level < 1 (k {}, n {}, level {})", k, n, level));
    const double alpha = 1 - level;
    const double lo = k == 0 ? 0.0 : quantile(boost::math::beta_distribution<double>(k, n - k + 1), alpha / 2);
    const double hi = k == n ? 1.0 : quantile(boost::math::beta_distribution<double>(k + 1, n - k), 1 - alpha / 2);
    return {lo, hi};
}

} // namespace kwb::stats
