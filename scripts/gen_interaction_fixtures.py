#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reference fixtures for a grid's interaction estimate (engine/stats/interaction.h), computed
with numpy and scipy, independently of the C++ code.

Run with Debian's /usr/bin/python3 (python3-numpy, python3-scipy):

    /usr/bin/python3 scripts/gen_interaction_fixtures.py

It writes tests/data/interaction/cases.json: grids of 2x2 to 4x4 cells, each non-baseline cell
an A/B against the baseline cell (runs drawn from normal distributions with a fixed seed), and for
each case the cells' delta%, the interaction contrasts d_ij - (d_i0 + d_0j), their 95% percentile
bootstrap CIs (numpy, 40,000 resamples; the C++ uses 10,000 with its own generator, so tests allow
0.5 points) and the two-way interaction F-test (weighted least squares with numpy.linalg.lstsq,
p from scipy.stats.f.sf).
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "interaction")
RNG = np.random.default_rng(20261130)
BOOT = 40000


def delta_pct(b, t, direction):
    return 100.0 * (b - t) / b if direction == "lower" else 100.0 * (t - b) / b


def cell_list(rows, cols):
    return [(i, j) for i in range(rows) for j in range(cols) if (i, j) != (0, 0)]


def contrasts_of(d, rows, cols):
    return [d[i][j] - (d[i][0] + d[0][j]) for i in range(1, rows) for j in range(1, cols)]


def two_way_test(cells, d, rows, cols, direction):
    """F-test of the additive model d_ij = a_i + b_j (a_0 = b_0 = 0), cells weighted by
    1 / (1/n_B + 1/n_T), against the run-to-run variance of every arm (runs as delta% against
    their cell's baseline mean)."""
    ss_within, df_res = 0.0, 0
    for c in cells:
        mb = np.mean(c["baseline"])
        for arm in (c["baseline"], c["treatment"]):
            y = np.array([delta_pct(mb, x, direction) for x in arm])
            ss_within += float(np.sum((y - y.mean()) ** 2))
            df_res += len(arm) - 1
    df_int = (rows - 1) * (cols - 1)
    if df_res <= 0 or ss_within <= 0:
        return None, None, df_int, df_res
    X, y, w = [], [], []
    for c in cells:
        i, j = c["row"], c["col"]
        x = np.zeros(rows - 1 + cols - 1)
        if i > 0:
            x[i - 1] = 1
        if j > 0:
            x[rows - 1 + j - 1] = 1
        X.append(x)
        y.append(d[i][j])
        w.append(1.0 / (1.0 / len(c["baseline"]) + 1.0 / len(c["treatment"])))
    X, y, sw = np.array(X), np.array(y), np.sqrt(np.array(w))
    beta, *_ = np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)
    ss_int = float(np.sum((sw * (y - X @ beta)) ** 2))
    f = (ss_int / df_int) / (ss_within / df_res)
    return f, float(stats.f.sf(f, df_int, df_res)), df_int, df_res


def make_case(name, rows, cols, direction, base, effect_r, effect_c, interaction, sd, n):
    cells = []
    for i, j in cell_list(rows, cols):
        mean_t = base * (1 - (effect_r[i] + effect_c[j] + interaction[i][j]) / 100.0) if direction == "lower" \
            else base * (1 + (effect_r[i] + effect_c[j] + interaction[i][j]) / 100.0)
        nb = n if isinstance(n, int) else n[(i, j)][0]
        nt = n if isinstance(n, int) else n[(i, j)][1]
        cells.append({"row": i, "col": j,
                      "baseline": [round(float(v), 5) for v in RNG.normal(base, sd * base, nb)],
                      "treatment": [round(float(v), 5) for v in RNG.normal(mean_t, sd * mean_t, nt)]})
    d = [[0.0] * cols for _ in range(rows)]
    for c in cells:
        d[c["row"]][c["col"]] = delta_pct(np.mean(c["baseline"]), np.mean(c["treatment"]), direction)
    contrasts = contrasts_of(d, rows, cols)
    # Reference bootstrap: every arm resampled, all contrasts recomputed together.
    boot = np.empty((BOOT, len(contrasts)))
    arrays = [(c["row"], c["col"], np.array(c["baseline"]), np.array(c["treatment"])) for c in cells]
    for k in range(BOOT):
        db = [[0.0] * cols for _ in range(rows)]
        for i, j, b, t in arrays:
            mb = RNG.choice(b, size=len(b), replace=True).mean()
            mt = RNG.choice(t, size=len(t), replace=True).mean()
            db[i][j] = delta_pct(mb, mt, direction)
        boot[k] = contrasts_of(db, rows, cols)
    ci = [[float(np.percentile(boot[:, k], 2.5)), float(np.percentile(boot[:, k], 97.5))] for k in range(len(contrasts))]
    f, p, df_int, df_res = two_way_test(cells, d, rows, cols, direction)
    if rows == 2 and cols == 2:
        flagged = ci[0][0] > 0 or ci[0][1] < 0
    else:
        flagged = p is not None and p < 0.05
    return {"name": name, "rows": rows, "cols": cols, "direction": direction, "cells": cells,
            "expected": {"delta_pct": d, "interaction_pct": contrasts, "ci95": ci,
                         "f_two_way": f, "p_two_way": p, "df": [df_int, df_res], "flagged": flagged}}


def main():
    os.makedirs(OUT, exist_ok=True)
    z = lambda r, c: [[0.0] * c for _ in range(r)]
    cases = [
        make_case("2x2 additive", 2, 2, "lower", 10.0, [0, 20], [0, 10], z(2, 2), 0.01, 8),
        make_case("2x2 antagonistic", 2, 2, "lower", 10.0, [0, 20], [0, 10], [[0, 0], [0, -15]], 0.01, 8),
        make_case("2x2 synergy, higher is better", 2, 2, "higher", 500.0, [0, 15], [0, 5], [[0, 0], [0, 12]], 0.02, 6),
        make_case("2x2 noisy, unequal n", 2, 2, "lower", 4.0, [0, 10], [0, 5], [[0, 0], [0, 3]], 0.08,
                  {(1, 0): (6, 5), (0, 1): (7, 7), (1, 1): (4, 9)}),
        make_case("3x2 additive", 3, 2, "lower", 8.0, [0, 10, 25], [0, 8], z(3, 2), 0.015, 6),
        make_case("3x3 one coupled cell", 3, 3, "lower", 8.0, [0, 10, 25], [0, 8, 12], [[0, 0, 0], [0, 0, 0], [0, 0, -20]],
                  0.015, 6),
        make_case("4x4 additive, higher is better", 4, 4, "higher", 100.0, [0, 5, 10, 15], [0, 3, 6, 9], z(4, 4), 0.02, 5),
    ]
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"generator": "scripts/gen_interaction_fixtures.py", "numpy": np.__version__,
                   "scipy": scipy.__version__, "bootstrap_resamples": BOOT, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
