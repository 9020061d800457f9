#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The worker-arm figures of a results folder (scripts/gpu/worker_studies.sh) as Markdown: each A/B's
verdict with n, delta, sigma and clocks; the A/A family with its Clopper-Pearson interval; kwb's
time per launch against triton.testing.do_bench. Every number is read from the folder's files."""
import json
import os
import statistics
import sys

from scipy.stats import beta  # Debian's python3-scipy (/usr/bin/python3)

folder = sys.argv[1]
summary = json.load(open(os.path.join(folder, "summary.json")))
print("| study | sample verdict | final | n per arm | delta % | sigma % | SM clock median (MHz) | host overhead per rep (ms, median) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for name, s in summary["studies"].items():
    if name.startswith("aa-"):
        continue
    clock = f"{s['clock_mhz']['median']:.0f}" if s["clock_mhz"] else "-"
    # A command arm's repetition is a whole process: no launch count, so no host overhead per rep.
    over = f"{s['harness_overhead_ms']['median']:.2f}" if s["harness_overhead_ms"] else "-"
    print(f"| {name} | {s['verdict']} | {s['final_verdict']} | {s['n'][0]}/{s['n'][1]} | {s['delta_pct']:.2f} | "
          f"{s['sigma_pct']:.2f} | {clock} | {over} |")
print()
for fam, f in summary["aa"].items():
    n, bad = f["studies"], f["not_noise"]
    lo = beta.ppf(0.025, bad, n - bad + 1) if bad else 0.0
    hi = beta.ppf(0.975, bad + 1, n - bad) if bad < n else 1.0
    deltas = [s["delta_pct"] for k, s in summary["studies"].items() if k.startswith(fam + "-") and s["delta_pct"] is not None]
    print(f"A/A `{fam}`: {n} studies, {bad} not NOISE ({', '.join(f'{k} {v}' for k, v in sorted(f['verdicts'].items()))}); "
          f"false-alarm rate {bad / n:.2f}, Clopper-Pearson 95% [{lo:.3f}, {hi:.3f}]; delta % median "
          f"{statistics.median(deltas):+.2f} (min {min(deltas):+.2f}, max {max(deltas):+.2f}), "
          f"{sum(d > 0 for d in deltas)} of {len(deltas)} positive.")
print()
print("| do_bench file | BLOCK_K | do_bench median ms (16 medians, min-max) | its SM clock after each call (MHz, median) | kwb median ms (n) | kwb / do_bench | in cycles |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name in sorted(os.listdir(folder)):
    if "dobench" not in name or not name.endswith(".json"):
        continue
    d = json.load(open(os.path.join(folder, name)))
    for bk, c in d["configs"].items():
        clk = statistics.median(c["dobench_sm_clock_mhz"]) if c.get("dobench_sm_clock_mhz") else None
        kwb = f"{c['kwb_median_ms']:.4f} ({c['kwb_n']})" if c.get("kwb_median_ms") else "-"
        ratio = f"{c['kwb_over_dobench']:.3f}" if c.get("kwb_over_dobench") else "-"
        cyc = f"{c['kwb_over_dobench_cycles']:.3f}" if c.get("kwb_over_dobench_cycles") else "-"
        print(f"| {name} | {bk} | {c['dobench_median_ms']:.4f} ({c['dobench_spread_ms'][0]:.4f}-{c['dobench_spread_ms'][1]:.4f}) | "
              f"{clk:.0f} |" if clk else f"| {name} | {bk} | {c['dobench_median_ms']:.4f} ({c['dobench_spread_ms'][0]:.4f}-{c['dobench_spread_ms'][1]:.4f}) | - |",
              f"{kwb} | {ratio} | {cyc} |")

# Wall time of kwb run per study (exits.txt, written by worker_studies.sh): the worker A/B against the
# same A/B as command arms (a process per repetition).
exits = os.path.join(folder, "exits.txt")
walls = {}
if os.path.exists(exits):
    for line in open(exits):
        words = line.split()
        if len(words) >= 7 and words[1] == "run:" and words[6] == "ms":
            walls[words[0]] = int(words[5])
if "wall-worker" in walls and "wall-command" in walls:
    print()
    print("| study | arms | kwb run wall time (s) | n per arm | host overhead per rep (ms, median) |")
    print("| --- | --- | --- | --- | --- |")
    for name, kind in (("wall-worker", "worker (one process per arm)"), ("wall-command", "command (a process per repetition)")):
        s = summary["studies"].get(name, {})
        over = s.get("harness_overhead_ms") or {}
        n = s.get("n") or ["-", "-"]
        print(f"| {name} | {kind} | {walls[name] / 1000:.1f} | {n[0]}/{n[1]} | "
              f"{over['median']:.2f} |" if over else f"| {name} | {kind} | {walls[name] / 1000:.1f} | {n[0]}/{n[1]} | - |")
    print()
    print(f"The command arms' run took {walls['wall-command'] / walls['wall-worker']:.2f}x the worker arms' "
          f"({walls['wall-command'] / 1000:.1f} s against {walls['wall-worker'] / 1000:.1f} s).")
