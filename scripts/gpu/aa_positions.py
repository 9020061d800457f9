#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where an A/A family's bias sits: for studies named PREFIX-N in a folder, each arm's judged
repetitions by their position in the ABBA block (0-3), as the mean time relative to the study's
baseline median; the same by what ran just before (the same arm's process, or the other's: a
switch); the idle time before each position; and the per-study deltas with a Wilcoxon
signed-rank test (Debian's python3-scipy). Usage: aa_positions.py FOLDER PREFIX > out.json"""
import glob
import json
import os
import statistics as st
import sys

from scipy.stats import wilcoxon

folder, prefix = sys.argv[1], sys.argv[2]
by_position, by_transition, idle, deltas = {}, {}, {}, []
for path in sorted(glob.glob(os.path.join(folder, f"{prefix}-*.json"))):
    e = json.load(open(path))["experiments"][0]
    judged = [s for s in e["samples"] if not s.get("warmup") and not s.get("failed") and not s.get("discarded")]
    base = st.median(s["metrics"]["time_ms"] for s in judged if s["arm"] == "baseline")
    treat = st.median(s["metrics"]["time_ms"] for s in judged if s["arm"] == "treatment")
    deltas.append(100 * (base - treat) / base)
    for s in judged:
        by_position.setdefault(f"{s['arm']} {s['position'] % 4}", []).append(100 * (s["metrics"]["time_ms"] / base - 1))
    in_order = sorted(judged, key=lambda s: s["position"])
    for prev, s in zip(in_order, in_order[1:]):
        after = "after a switch" if prev["arm"] != s["arm"] else "after the same arm"
        by_transition.setdefault(f"{s['arm']} {after}", []).append(100 * (s["metrics"]["time_ms"] / base - 1))
    ordered = sorted((s for s in e["samples"] if "t_s" in s), key=lambda s: s["t_s"])
    for prev, s in zip(ordered, ordered[1:]):
        if not s.get("warmup"):
            idle.setdefault(str(s["position"] % 4), []).append(1e3 * (s["t_s"] - prev["t_s"] - prev.get("duration_s", 0)))
print(json.dumps({
    "studies": len(deltas),
    "delta_pct": {"median": st.median(deltas), "positive": sum(d > 0 for d in deltas), "wilcoxon_p": wilcoxon(deltas).pvalue},
    "time_vs_baseline_median_pct_by_abba_position": {k: {"mean": st.mean(v), "n": len(v)} for k, v in sorted(by_position.items())},
    "time_vs_baseline_median_pct_by_arm_and_transition":
        {k: {"mean": st.mean(v), "median": st.median(v), "n": len(v)} for k, v in sorted(by_transition.items())},
    "idle_before_ms_by_position": {k: {"median": st.median(v), "n": len(v)} for k, v in sorted(idle.items())},
}, indent=1))
