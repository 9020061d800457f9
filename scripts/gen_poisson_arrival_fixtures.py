#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes tests/data/serving/poisson_arrivals.json: tiny_llm's Poisson arrival times
(kernels/cpu/request_schedule.h, poisson_arrivals_ms) recomputed from their definition: a
SplitMix64 stream seeded with seed * 0x9fb21c651e98df25 + 0x2545f4914f6cdd1d (mod 2^64),
u = ((z >> 11) + 0.5) / 2^53, gaps from scipy's exponential quantile function with mean
1000 / rate ms, the first arrival at 0 and the rest numpy's cumulative sum of the gaps.
Also each case's sample mean gap, to show the stream is exponential at the stated rate.
Run: /usr/bin/python3 scripts/gen_poisson_arrival_fixtures.py"""
import json
import os

import numpy as np
import scipy
from scipy.stats import expon

MASK = (1 << 64) - 1
CASES = [(42, 50.0, 40), (1, 5.0, 16), (123456789, 1000.0, 25), (0, 200.0, 8)]


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


out = {"generator": "scripts/gen_poisson_arrival_fixtures.py", "numpy": np.__version__, "scipy": scipy.__version__,
       "cases": []}
for seed, rate, count in CASES:
    state = (seed * 0x9FB21C651E98DF25 + 0x2545F4914F6CDD1D) & MASK
    u = []
    for _ in range(count - 1):
        state, z = splitmix64(state)
        u.append(((z >> 11) + 0.5) / 2.0**53)
    gaps = expon.ppf(np.array(u), scale=1000.0 / rate)
    arrivals = np.concatenate([[0.0], np.cumsum(gaps)])
    out["cases"].append({"seed": seed, "rate_per_s": rate, "count": count, "arrival_ms": arrivals.tolist(),
                         "mean_gap_ms": float(np.mean(gaps))})
path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "serving", "poisson_arrivals.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
