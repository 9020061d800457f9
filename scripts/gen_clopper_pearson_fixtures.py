#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes tests/data/stats/clopper_pearson_cases.json: exact (Clopper-Pearson) 95% intervals of a
binomial proportion from scipy (Debian python3-scipy), two ways that must agree: the beta
quantiles (scipy.stats.beta.ppf) and scipy.stats.binomtest(...).proportion_ci(method="exact").
Run: /usr/bin/python3 scripts/gen_clopper_pearson_fixtures.py"""
import json
import os

import scipy
from scipy.stats import beta, binomtest

CASES = [(0, 1), (1, 1), (0, 5), (1, 5), (5, 5), (0, 20), (1, 20), (3, 20), (10, 20), (19, 20), (20, 20),
         (2, 37), (7, 100), (50, 100), (0, 1000), (13, 1000), (999, 1000), (123, 4567)]
LEVEL = 0.95

out = {"generator": "scripts/gen_clopper_pearson_fixtures.py", "scipy": scipy.__version__, "level": LEVEL,
       "cases": []}
a = 1 - LEVEL
for k, n in CASES:
    lo = 0.0 if k == 0 else float(beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - a / 2, k + 1, n - k))
    ci = binomtest(k, n).proportion_ci(confidence_level=LEVEL, method="exact")
    assert abs(ci.low - lo) < 1e-12 and abs(ci.high - hi) < 1e-12, (k, n, ci, lo, hi)
    out["cases"].append({"k": k, "n": n, "lo": lo, "hi": hi})
path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "stats", "clopper_pearson_cases.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
