#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes tests/data/stats/bootstrap_cases.json: percentile-bootstrap 95% intervals of delta% (spec/verdict.md,
"Evidence") from scipy.stats.bootstrap (Debian python3-scipy), each arm resampled independently, with many
more resamples than kwb draws (so the reference's own Monte-Carlo error is small beside the tolerance the test
allows kwb's 10,000). delta% = 100 (b - t) / b for lower-is-better, 100 (t - b) / b for higher-is-better, of the
arms' means. Run: /usr/bin/python3 scripts/gen_bootstrap_fixtures.py"""
import json
import os

import numpy as np
import scipy
from scipy.stats import bootstrap

RESAMPLES = 400000
CASES = [
    {"name": "seven_vs_six", "baseline": [10.0, 10.4, 9.8, 10.2, 10.1, 9.9, 10.3],
     "treatment": [9.1, 9.5, 8.9, 9.2, 9.2, 9.0], "direction": "lower"},
    {"name": "skewed_tail", "baseline": [5.0, 5.1, 5.0, 5.2, 5.05, 6.4, 5.1, 5.0, 5.15, 5.02],
     "treatment": [4.8, 4.85, 4.9, 4.8, 5.9, 4.82, 4.88, 4.81, 4.95, 4.84], "direction": "lower"},
    {"name": "higher_is_better", "baseline": [100.0, 102.0, 99.0, 101.0, 98.5],
     "treatment": [104.0, 103.5, 106.0, 105.0, 104.2, 103.9], "direction": "higher"},
]

out = {"generator": "scripts/gen_bootstrap_fixtures.py", "scipy": scipy.__version__, "resamples": RESAMPLES,
       "level": 0.95, "cases": []}
rng = np.random.default_rng(20261202)
for case in CASES:
    sign = 1.0 if case["direction"] == "lower" else -1.0

    def delta_pct(b, t, axis=-1):
        mb = np.mean(b, axis=axis)
        return sign * 100.0 * (mb - np.mean(t, axis=axis)) / mb

    res = bootstrap((np.array(case["baseline"]), np.array(case["treatment"])), delta_pct, n_resamples=RESAMPLES,
                    method="percentile", confidence_level=0.95, vectorized=True, paired=False, random_state=rng)
    out["cases"].append(dict(case, lo=float(res.confidence_interval.low), hi=float(res.confidence_interval.high)))
path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "stats", "bootstrap_cases.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
