// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one regression rule: the guard rule of spec/verdict.md. A guard metric, a CI gate
// (`kwb gate`), a bisect step and a ledger history all call a change a regression through it, so
// "regressed" means the same thing wherever the product says it.
#include "verdict/verdict_types.h"

namespace kwb {

struct RegressionCall {
    bool assessed = false; // sample rules 1-2 passed: enough runs, stable
    bool regressed = false; // delta% < 0, |delta%| > noise_k x sigma%, and -delta% > tolerance
    double delta_pct = 0;
    double sigma_pct = 0;
    double noise_band_pct = 0; // noise_k x sigma%
};

// `v` is a sample verdict judged under `p` (its direction already the metric's own).
RegressionCall call_regression(const SampleVerdict& v, const Profile& p, double tolerance_pct);

} // namespace kwb
