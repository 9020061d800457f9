#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reference fixtures for the verdict engine (spec/verdict.md), computed with numpy and scipy.

Run with Debian's /usr/bin/python3 (python3-numpy, python3-scipy):

    /usr/bin/python3 scripts/gen_verdict_fixtures.py

It writes tests/data/verdict/stats_cases.json (descriptive statistics, percentiles, Tukey counts,
Welch and Mann-Whitney p-values, a numpy bootstrap CI, bimodality) and
tests/data/verdict/decision_cases.json (random cases judged by an independent Python
implementation of the spec's rules). Both outputs are committed, so the C++ tests need no scipy.
The inputs come from a fixed seed: rerunning reproduces the same files.
"""
import json
import math
import os
import warnings

import numpy as np
import scipy
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "verdict")
RNG = np.random.default_rng(20240611)
BOOT = 40000   # resamples of the reference bootstrap (the C++ one uses 10,000; tests allow 0.5 points)


def fnum(x):
    """A JSON number, or None for anything undefined."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def round_values(a, digits=4):
    return [float(round(v, digits)) for v in a]


# ---- the spec's definitions, re-implemented independently ------------------------------------

def delta_pct(mb, mt, direction):
    return 100 * (mb - mt) / mb if direction == "lower" else 100 * (mt - mb) / mb


def speedup(mb, mt, direction):
    return mb / mt if direction == "lower" else mt / mb


def cv_pct(x):
    return None if len(x) < 2 else 100 * np.std(x, ddof=1) / np.mean(x)


def bimodality(x):
    """(flag or None, modes or None) by the spec's gap rule."""
    n = len(x)
    if n < 6:
        return None, None
    v = np.sort(np.asarray(x, dtype=float))
    if v[0] == v[-1]:
        return False, None
    gaps = np.diff(v)
    i = int(np.argmax(gaps))          # argmax returns the first maximum: the one nearest the low end
    lo, hi = v[: i + 1], v[i + 1:]
    m = max(2, -(-15 * n // 100))     # ceil(0.15 n) in integers
    ss = lambda s: (len(s) - 1) * np.var(s, ddof=1) if len(s) > 1 else 0.0
    pooled = math.sqrt((ss(lo) + ss(hi)) / (n - 2))
    floor = 0.01 * float(np.median(np.abs(v)))   # the resolution floor: a gap under 1% of the median is no mode
    if len(lo) >= m and len(hi) >= m and gaps[i] > 6 * pooled and gaps[i] >= floor:
        modes = [{"share": len(lo) / n, "mean": float(np.mean(lo))}, {"share": len(hi) / n, "mean": float(np.mean(hi))}]
        if modes[1]["share"] > modes[0]["share"]:
            modes.reverse()
        return True, modes
    return False, None


def tukey(x):
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    below = q1 - np.asarray(x)
    above = np.asarray(x) - q3
    beyond = np.maximum(np.maximum(below, above), 0)
    return int(np.sum(beyond > 1.5 * iqr)), int(np.sum(beyond > 3 * iqr))


def mw_method(b, t):
    ties = len(np.unique(np.concatenate([b, t]))) < len(b) + len(t)
    return "exact" if (len(b) < 8 or len(t) < 8) and not ties else "asymptotic"


def p_mannwhitney(b, t):
    method = mw_method(b, t)
    if len(np.unique(np.concatenate([b, t]))) == 1:
        return 1.0, method
    return float(stats.mannwhitneyu(b, t, alternative="two-sided", method=method).pvalue), method


def p_welch(b, t):
    # Constant means all values equal: np.var of equal floats can come out a rounding error above 0.
    if len(b) < 2 or len(t) < 2 or (len(set(b)) == 1 and len(set(t)) == 1):
        return None
    return fnum(stats.ttest_ind(b, t, equal_var=False).pvalue)


def bootstrap_ci(b, t, direction):
    if len(b) < 2 or len(t) < 2:
        return None
    b, t = np.asarray(b), np.asarray(t)
    mb = b[RNG.integers(0, len(b), size=(BOOT, len(b)))].mean(axis=1)
    mt = t[RNG.integers(0, len(t), size=(BOOT, len(t)))].mean(axis=1)
    d = delta_pct(mb, mt, direction)
    return [float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5))]


def arm_stats(x):
    x = np.asarray(x, dtype=float)
    mild, extreme = tukey(x)
    flag, modes = bimodality(x)
    p50, p90, p99 = np.percentile(x, [50, 90, 99])
    return {"n": len(x), "mean": float(np.mean(x)), "median": float(np.median(x)),
            "stddev": fnum(np.std(x, ddof=1)) if len(x) > 1 else None, "cv_pct": fnum(cv_pct(x)),
            "min": float(np.min(x)), "max": float(np.max(x)), "p50": float(p50), "p90": float(p90), "p99": float(p99),
            "outliers_mild": mild, "outliers_extreme": extreme, "bimodal": flag, "modes": modes}


def evidence(b, t, direction, paired=False):
    b, t = np.asarray(b, dtype=float), np.asarray(t, dtype=float)
    mb, mt = float(np.mean(b)), float(np.mean(t))
    cb, ct = cv_pct(b), cv_pct(t)
    pmw, method = p_mannwhitney(b, t)
    e = {"delta_pct": delta_pct(mb, mt, direction), "speedup": speedup(mb, mt, direction),
         "sigma_pct": None if cb is None or ct is None else max(cb, ct),
         "ci95_delta_pct": bootstrap_ci(b, t, direction), "p_welch": p_welch(b, t),
         "p_mannwhitney": pmw, "mannwhitney_method": method,
         "arms": {"baseline": arm_stats(b), "treatment": arm_stats(t)}, "paired": None}
    if paired:
        d = delta_pct(b, t, direction)
        ci = None
        if len(d) > 1:
            m = d[RNG.integers(0, len(d), size=(BOOT, len(d)))].mean(axis=1)
            ci = [float(np.percentile(m, 2.5)), float(np.percentile(m, 97.5))]
        e["paired"] = {"n_pairs": len(d), "mean_delta_pct": float(np.mean(d)), "ci95_delta_pct": ci}
    return e


PROFILES = {
    "generic": dict(min_n=3, license_pct=10, kill_pct=5, max_sigma_pct=5, unstable_sigma_pct=10, noise_k=2),
}
PROFILES["strict"] = dict(PROFILES["generic"])
PROFILES["speedup"] = dict(PROFILES["generic"], license_speedup=5.0, kill_speedup=2.0)


def judge(e, family, p):
    """The sample rules, first match wins. Returns (word, rule) or None when too close to call
    (the strict gate's bootstrap bound or p-value is near its threshold, where the C++ bootstrap
    may legitimately differ)."""
    nb, nt = e["arms"]["baseline"]["n"], e["arms"]["treatment"]["n"]
    if nb < p["min_n"] or nt < p["min_n"]:
        return "INCONCLUSIVE", 1
    s = e["sigma_pct"]
    if s is None or s > p["unstable_sigma_pct"]:
        return "INCONCLUSIVE", 2
    if e["arms"]["baseline"]["bimodal"] or e["arms"]["treatment"]["bimodal"]:
        return "INCONCLUSIVE", 3
    d = e["delta_pct"]
    if abs(d) <= p["noise_k"] * s:
        return "NOISE", 4
    if family == "speedup":
        x = e["speedup"]
        if x >= p["license_speedup"] and s < p["max_sigma_pct"]:
            return "LICENSE", 5
        if x < p["kill_speedup"]:
            return "KILL", 6
        return "INCONCLUSIVE", 7
    if d >= p["license_pct"] and s < p["max_sigma_pct"]:
        if family == "strict":
            lo = e["ci95_delta_pct"][0]
            pw = e["p_welch"]
            if abs(lo - p["kill_pct"]) < 0.75 or (pw is not None and abs(pw - 0.05) < 0.005):
                return None
            if not (lo >= p["kill_pct"] and pw is not None and pw < 0.05):
                return "INCONCLUSIVE", 5
        return "LICENSE", 5
    if d < p["kill_pct"]:
        return "KILL", 6
    return "INCONCLUSIVE", 7


# ---- the cases ----------------------------------------------------------------------------------

def stats_cases():
    cases = []

    def add(name, b, t, direction="lower", paired=False):
        b, t = round_values(b), round_values(t)
        cases.append({"name": name, "baseline": b, "treatment": t, "direction": direction, "paired": paired,
                      "expected": evidence(b, t, direction, paired)})

    add("spec_example_like", [10.0, 10.1, 9.9, 10.05, 9.95], [8.6, 8.55, 8.58, 8.52, 8.61])
    add("n1_both", [10.0], [9.0])
    add("n1_baseline", [10.0], [9.0, 9.1, 8.9])
    add("constant_equal", [5.0] * 6, [5.0] * 6)
    add("constant_different", [5.0] * 6, [4.0] * 6)
    add("one_constant", [5.0] * 6, [4.0, 4.1, 3.9, 4.05, 3.95, 4.0])
    add("all_tied_pairs", [7.0, 7.0, 7.0], [7.0, 7.0, 7.0, 7.0])
    add("single_outlier", [10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.02, 25.0], [9.0, 9.1, 8.9, 9.05, 8.95, 9.0, 9.02, 9.01])
    add("two_clusters", [78.9, 79.1, 78.7, 79.0, 78.8, 79.2, 56.0, 56.1, 55.9], [70.0, 70.5, 69.5, 70.2, 69.8, 70.1, 69.9, 70.3, 70.0])
    add("higher_throughput", [100, 102, 98, 101, 99], [120, 121, 119, 122, 118], "higher")
    add("paired_abba", [10.0, 10.4, 9.8, 10.2, 10.1, 9.9], [9.1, 9.5, 8.9, 9.2, 9.2, 9.0], "lower", True)
    add("paired_higher", [50, 52, 49, 51], [55, 56, 54, 57], "higher", True)
    add("exact_tiny_p", list(RNG.normal(10, 0.1, 7)), list(RNG.normal(8, 0.1, 40)))
    add("exact_7_vs_7", list(RNG.normal(10, 0.5, 7)), list(RNG.normal(9.7, 0.5, 7)))
    add("asymptotic_ties", [10.1, 10.2, 10.2, 10.3, 10.3, 10.3, 10.4, 10.5],
        [10.2, 10.3, 10.4, 10.4, 10.5, 10.5, 10.6, 10.6], "lower")
    add("mixed_tie_small", [10, 11, 12], [11, 13, 14])
    add("large_asymptotic", list(RNG.lognormal(2.3, 0.05, 200)), list(RNG.lognormal(2.25, 0.06, 180)))
    add("eight_each_exact_boundary", list(RNG.normal(10, 0.3, 8)), list(RNG.normal(10.2, 0.3, 8)))
    for i in range(24):
        nb, nt = int(RNG.integers(2, 30)), int(RNG.integers(2, 30))
        mb = float(RNG.uniform(0.5, 500))
        cv = float(RNG.uniform(0.002, 0.12))
        shift = float(RNG.uniform(-0.3, 0.5))
        b = RNG.normal(mb, cv * mb, nb)
        t = RNG.normal(mb * (1 - shift), cv * mb * RNG.uniform(0.5, 1.5), nt)
        b, t = np.abs(b) + 1e-3, np.abs(t) + 1e-3
        add(f"random_{i:02d}", list(b), list(t), "higher" if i % 3 == 0 else "lower", nb == nt and i % 2 == 0)
    # The resolution floor: two tight clusters whose gap is 0.9% (not bimodal) and 1.1% (bimodal) of
    # the median, and CUDA-event ticks 1 us apart at 0.247 / 0.248 ms (not bimodal).
    for name, gap in (("floor_gap_0p9_pct", 0.009), ("floor_gap_1p1_pct", 0.011)):
        low = [100.0, 100.0001, 99.9999, 100.0002, 99.9998, 100.0]
        add(name, low + [100.0 * (1 + gap) + d for d in (0.0, 0.0001, -0.0001, 0.0002, -0.0002, 0.0)],
            [99.0, 99.1, 98.9, 99.05, 98.95, 99.0])
    ticks = [0.247, 0.248, 0.247, 0.247, 0.248, 0.248, 0.247, 0.248, 0.247, 0.248]
    add("timer_ticks_0p247_0p248", ticks, [0.239, 0.240, 0.239, 0.240, 0.239, 0.240, 0.240, 0.239, 0.239, 0.240])
    return cases


def random_arm(n, mean, cv, kind):
    if kind == "normal":
        x = RNG.normal(mean, cv * mean, n)
    elif kind == "bimodal" and n >= 3:
        k = max(1, n // 3)
        x = np.concatenate([RNG.normal(mean, cv * mean * 0.1, n - k), RNG.normal(mean * (1 - 1.5 * cv), cv * mean * 0.1, k)])
        RNG.shuffle(x)
    elif kind in ("lognormal", "bimodal"):
        x = mean * RNG.lognormal(0, cv, n)
    else:   # constant
        x = np.full(n, mean)
    return list(np.abs(x) + 1e-6)


def decision_cases(count=600):
    cases = []
    while len(cases) < count:
        family = ["generic", "strict", "speedup"][len(cases) % 3]
        direction = "higher" if RNG.random() < 0.4 else "lower"
        p = dict(PROFILES[family])
        overrides = {}
        if RNG.random() < 0.25:
            key = str(RNG.choice(list(p.keys())))
            if key == "min_n":
                overrides[key] = int(RNG.integers(1, 8))
            elif key.endswith("speedup"):
                overrides[key] = float(round(RNG.uniform(1.2, 6), 2))
            else:
                overrides[key] = float(round(RNG.uniform(0.5, 15), 2))
            p[key] = overrides[key]
        nb, nt = int(RNG.integers(1, 21)), int(RNG.integers(1, 21))
        if RNG.random() < 0.3:
            nb = nt = int(RNG.integers(3, 6))
        mean = float(RNG.uniform(1, 1000))
        factor = float(RNG.uniform(0.12, 1.0)) if family == "speedup" else float(RNG.uniform(0.7, 1.3))
        kind_b = str(RNG.choice(["normal", "normal", "lognormal", "bimodal", "constant"], p=[0.4, 0.2, 0.2, 0.1, 0.1]))
        kind_t = str(RNG.choice(["normal", "normal", "lognormal", "bimodal", "constant"], p=[0.4, 0.2, 0.2, 0.1, 0.1]))
        cv_b, cv_t = float(RNG.uniform(0.001, 0.07)), float(RNG.uniform(0.001, 0.07))
        if family == "strict" and RNG.random() < 0.3:   # the strict gate's own grey zone
            nb = nt = int(RNG.integers(3, 5))
            kind_b = kind_t = "normal"
            cv_b, cv_t = float(RNG.uniform(0.03, 0.05)), float(RNG.uniform(0.03, 0.05))
            factor = float(RNG.uniform(0.84, 0.9))
            overrides, p = {}, dict(PROFILES[family])
        b = round_values(random_arm(nb, mean, cv_b, kind_b), 6)
        tm = mean * factor if direction == "lower" else mean / factor
        t = round_values(random_arm(nt, tm, cv_t, kind_t), 6)
        if min(b) <= 0 or min(t) <= 0:
            continue
        e = evidence(b, t, direction)
        r = judge(e, family, p)
        if r is None:
            continue
        # Keep away from exact rule boundaries, where float rounding decides.
        d, s = e["delta_pct"], e["sigma_pct"]
        if s is not None:
            near = [abs(abs(d) - p["noise_k"] * s), abs(s - p["unstable_sigma_pct"]), abs(s - p["max_sigma_pct"]),
                    abs(d - p["license_pct"]), abs(d - p["kill_pct"])]
            if family == "speedup":
                near += [abs(e["speedup"] - p["license_speedup"]), abs(e["speedup"] - p["kill_speedup"])]
            if min(near) < 1e-6:
                continue
        cases.append({"name": f"case_{len(cases):03d}", "profile": family, "overrides": overrides,
                      "direction": direction, "baseline": b, "treatment": t, "verdict": r[0], "rule": r[1]})
    return cases


def main():
    warnings.simplefilter("ignore", RuntimeWarning)   # scipy's cancellation notice on constant arms
    os.makedirs(OUT, exist_ok=True)
    meta = {"generator": "scripts/gen_verdict_fixtures.py", "numpy": np.__version__, "scipy": scipy.__version__,
            "bootstrap_resamples": BOOT}
    with open(os.path.join(OUT, "stats_cases.json"), "w") as f:
        json.dump({"meta": meta, "cases": stats_cases()}, f, indent=1)
        f.write("\n")
    dc = decision_cases()
    with open(os.path.join(OUT, "decision_cases.json"), "w") as f:
        json.dump({"meta": meta, "cases": dc}, f, indent=1)
        f.write("\n")
    counts = {}
    for c in dc:
        k = (c["profile"], c["verdict"], c["rule"])
        counts[k] = counts.get(k, 0) + 1
    for k in sorted(counts):
        print(*k, counts[k])


if __name__ == "__main__":
    main()
