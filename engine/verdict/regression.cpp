// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/regression.h"

#include <cmath>

namespace kwb {

RegressionCall call_regression(const SampleVerdict& v, const Profile& p, double tolerance_pct)
{
    RegressionCall c;
    c.assessed = v.rule != 1 && v.rule != 2;
    c.delta_pct = v.delta_pct.value_or(0.0);
    c.sigma_pct = v.sigma_pct.value_or(0.0);
    c.noise_band_pct = p.noise_k * c.sigma_pct;
    c.regressed
        = c.assessed && c.delta_pct < 0 && std::fabs(c.delta_pct) > c.noise_band_pct && -c.delta_pct > tolerance_pct;
    return c;
}

} // namespace kwb
