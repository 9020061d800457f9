#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Recorded-style studies for the study-level GPU rules (docs/verdict.md, "Another process on the
GPU" and "Cycles"), with the numbers the C++ test expects computed here, independently.

    /usr/bin/python3 scripts/gen_gpu_rules_fixtures.py

Each study is tests/data/studies/kill.json with its one experiment replaced by a CUDA copy A/B as
`kwb run` records it: 1 warm-up and 6 judged repetitions per arm in abba order, each repetition's
start (t_s) and duration on the lanes' clock, NVML's per-repetition clock (clock_mhz), the NVML
`other_gpu_processes` lane every 10 ms and the CUPTI PM `sm_clock` lane every 1 ms (reading the
idle clock between repetitions, so a clock taken outside a repetition's window shows). Written to
tests/data/studies/gpu/ with expected.json; deterministic, committed.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "studies")
OUT = os.path.join(DATA, "gpu")

REP_S = 0.05  # each repetition's duration
GAP_S = 0.01  # between repetitions
T0 = 1.0  # the first warm-up starts here
IDLE_MHZ = 345.0


def schedule():
    """(arm, rep, position, warmup) in run order: one warm-up pair, then 3 abba blocks."""
    runs = [("baseline", 0, -2, True), ("treatment", 0, -1, True)]
    reps = {"baseline": 0, "treatment": 0}
    position = 0
    for block in range(3):
        for arm in ("baseline", "treatment", "treatment", "baseline"):
            runs.append((arm, reps[arm], position, False))
            reps[arm] += 1
            position += 1
    return runs


def study(name, backend, time_ms, clock_mhz, shared_positions, pm_lane=True):
    """time_ms / clock_mhz: arm -> function of the rep index."""
    with open(os.path.join(DATA, "kill.json")) as f:
        s = json.load(f)
    e = s["experiments"][0]
    e["backend"] = backend
    e["verdict"] = None
    e["final_verdict"] = None
    e["aa_calibration"] = None
    s["ledger"] = []
    samples, windows = [], []
    t = T0
    for arm, rep, position, warmup in schedule():
        ms = time_ms[arm](rep + (0 if warmup else 1))
        mhz = clock_mhz[arm](rep + (0 if warmup else 1))
        samples.append({"arm": arm, "rep": rep, "position": position, "warmup": warmup, "discarded": False,
                        "throttled": False, "started_at": "2026-12-02T12:00:00.000Z", "duration_s": REP_S,
                        "t_s": t, "metrics": {"time_ms": ms}, "clock_mhz": mhz, "launches": 1})
        windows.append((t, t + REP_S, mhz, position, warmup))
        t += REP_S + GAP_S
    end = t + 0.2
    e["samples"] = samples

    def during(x):
        for w in windows:
            if w[0] <= x <= w[1]:
                return w
        return None

    procs_t, procs_v = [], []
    x = 0.005
    while x < end:
        w = during(x)
        procs_t.append(round(x, 6))
        procs_v.append(1.0 if shared_positions == "all" or (w and not w[4] and w[3] in shared_positions) else 0.0)
        x += 0.01
    lanes = [{"name": "other_gpu_processes", "unit": "count", "t_s": procs_t, "values": procs_v}]
    if pm_lane:
        clk_t, clk_v = [], []
        x = 0.0005
        while x < end:
            w = during(x)
            clk_t.append(round(x, 6))
            clk_v.append(w[2] if w else IDLE_MHZ)
            x += 0.001
        lanes.append({"name": "sm_clock", "unit": "MHz", "t_s": clk_t, "values": clk_v})
    e["lanes"] = lanes
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
    return samples


SEED = [20261202]


def wobble(base, amp):
    """Gaussian noise of relative size amp around base, from its own fixed seed (deterministic)."""
    SEED[0] += 1
    rng = random.Random(SEED[0])
    return lambda i: base * (1 + amp * rng.gauss(0, 1))


def cycles_delta(samples):
    """delta% of the mean cycles (time x clock), lower is better, judged repetitions only."""
    per_arm = {"baseline": [], "treatment": []}
    for s in samples:
        if not s["warmup"]:
            per_arm[s["arm"]].append(s["metrics"]["time_ms"] * s["clock_mhz"])
    b = sum(per_arm["baseline"]) / len(per_arm["baseline"])
    t = sum(per_arm["treatment"]) / len(per_arm["treatment"])
    return 100.0 * (b - t) / b


def main():
    slower = {"baseline": wobble(1.0, 0.004), "treatment": wobble(1.2, 0.004)}
    steady = {"baseline": wobble(1980.0, 0.001), "treatment": wobble(1980.0, 0.001)}
    expected = {}
    study("shared_all", "cuda", slower, steady, "all")
    expected["shared_all"] = {"repetitions": 12, "shared": 12}
    study("shared_some", "cuda", slower, steady, [4, 5, 6])
    expected["shared_some"] = {"repetitions": 12, "shared": 3, "positions": [4, 5, 6]}
    clean = study("clean", "cuda", slower, steady, [])
    expected["clean"] = {"repetitions": 12, "shared": 0, "cycles_delta_pct": cycles_delta(clean)}
    # The treatment is 10% slower by the clock on the wall but ran at a clock 24% lower: per cycle
    # it is faster.
    throttled_clock = {"baseline": wobble(1980.0, 0.001), "treatment": wobble(1500.0, 0.001)}
    throttled_time = {"baseline": wobble(1.0, 0.004), "treatment": wobble(1.1, 0.004)}
    th = study("throttled", "cuda", throttled_time, throttled_clock, [])
    expected["throttled"] = {"cycles_delta_pct": cycles_delta(th), "clock_baseline_mhz":
                             sum(s["clock_mhz"] for s in th if not s["warmup"] and s["arm"] == "baseline") / 6,
                             "clock_treatment_mhz":
                             sum(s["clock_mhz"] for s in th if not s["warmup"] and s["arm"] == "treatment") / 6}
    study("cpu", "cpu", slower, steady, [], pm_lane=False)
    expected["cpu"] = {}
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
