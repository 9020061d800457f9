#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures for the ledger's change points (engine/ledger/change_points.h), from an independent
implementation of the stated method in numpy/scipy:

  at every split i, the `window` values before it (baseline) and from it on (treatment):
  - rule 1: both have >= min_n values;
  - rule 2: sigma% = max(cv%_B, cv%_T) (sample sd, ddof=1) <= unstable_sigma_pct;
  - rule 3: not bimodal (only assessed from 6 values: these fixtures use windows of 5);
  - rule 4: |delta%| > noise_k * sigma%, delta% = 100 (b - t) / b for lower-is-better;
  - Welch's t-test (scipy.stats.ttest_ind, equal_var=False) p < alpha.
  Candidates by p ascending (ties: earlier split), kept when no kept one lies within `window`.

Run: /usr/bin/python3 scripts/gen_change_point_fixtures.py > tests/data/ledger/change_point_cases.json
"""
import json
import sys

import numpy as np
from scipy import stats

MIN_N, UNSTABLE, NOISE_K = 3, 10.0, 2.0


def change_points(x, window, alpha, direction):
    cands = []
    for i in range(window, len(x) - window + 1):
        b, t = np.array(x[i - window:i]), np.array(x[i:i + window])
        if len(b) < MIN_N or len(t) < MIN_N:
            continue
        mb, mt = b.mean(), t.mean()
        sigma = max(100 * b.std(ddof=1) / mb, 100 * t.std(ddof=1) / mt)
        if sigma > UNSTABLE:
            continue
        delta = 100 * (mb - mt) / mb if direction == "lower" else 100 * (mt - mb) / mb
        if abs(delta) <= NOISE_K * sigma:
            continue
        p = stats.ttest_ind(b, t, equal_var=False).pvalue
        if p < alpha:
            cands.append((p, i, delta, sigma))
    cands.sort(key=lambda c: (c[0], c[1]))
    kept = []
    for c in cands:
        if all(abs(c[1] - k[1]) >= window for k in kept):
            kept.append(c)
    kept.sort(key=lambda c: c[1])
    return [{"index": i, "delta_pct": d, "sigma_pct": s, "p_welch": p} for p, i, d, s in kept]


def main():
    rng = np.random.default_rng(20261202)
    cases = []

    def case(name, values, direction="lower", window=5, alpha=0.001):
        values = [float(v) for v in values]
        cases.append({"name": name, "direction": direction, "window": window, "alpha": alpha, "values": values,
                      "expected": change_points(values, window, alpha, direction)})

    case("flat", 10.0 * (1 + 0.01 * rng.standard_normal(40)))
    case("flat_noisy", 5.0 * (1 + 0.03 * rng.standard_normal(60)))
    step = np.r_[np.full(20, 10.0), np.full(20, 10.8)] * (1 + 0.01 * rng.standard_normal(40))
    case("step_worse_at_20", step)
    two = np.r_[np.full(15, 2.0), np.full(15, 1.7), np.full(15, 1.9)] * (1 + 0.008 * rng.standard_normal(45))
    case("two_steps", two)
    case("step_higher_is_better", np.r_[np.full(25, 300.0), np.full(25, 270.0)] * (1 + 0.01 * rng.standard_normal(50)),
         direction="higher")
    json.dump({"generator": "scripts/gen_change_point_fixtures.py", "numpy": np.__version__,
               "scipy": __import__("scipy").__version__, "min_n": MIN_N, "unstable_sigma_pct": UNSTABLE,
               "noise_k": NOISE_K, "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
