#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds recorded_h200_lanes.json, the fixture of tst_lane_range and tst_runner_lanes: percentage
# lanes as the H200 recorded them before the lanes were fixed (issue 30), trimmed from committed
# studies under bench/results/, with what the range rule must make of each, computed here
# independently of the engine: a reading in [0, 100] is kept, one in (100, 100.5] is kept as 100,
# anything else (above 100.5, negative, non-finite) is dropped and counted.
# Run from the repository root: tests/data/lanes/make_recorded_lanes.py > tests/data/lanes/recorded_h200_lanes.json
import json, math, sys

SOURCES = [
    # (study, experiment index, lanes, first sample, last sample + 1)
    ("bench/results/2026-11-30-h200-kwb-studies/studies/aa-gemm-1.json", 0,
     ["occupancy", "sm_pct", "tensor_pct", "fma_pct", "smem_pipe_pct", "sm_active_pct", "ipc"], 330, 700),
    ("bench/results/2026-12-01-h200-aa-bias/before/copy-random-10.json", 0,
     ["sm_pct", "fma_pct", "sm_active_pct"], 0, 375),
    ("bench/results/2026-12-01-h200-llm-perf/call3/studies/reverted-4fe84c0-3.4gb.json", 0,
     ["bench_thread_cpu", "cpu_util"], 0, None),
]
TOLERANCE = 0.5


def judge(unit, v):
    if not math.isfinite(v):
        return "dropped", None
    if unit != "%":
        return "kept", v
    if v < 0 or v > 100 + TOLERANCE:
        return "dropped", None
    if v > 100:
        return "clamped", 100.0
    return "kept", v


out = {"source": "trimmed from committed H200 studies; see make_recorded_lanes.py", "lanes": []}
for path, ei, names, first, last in SOURCES:
    e = json.load(open(path))["experiments"][ei]
    by_name = {l["name"]: l for l in e["lanes"]}
    for name in names:
        lane = by_name[name]
        t, v = lane["t_s"][first:last], lane["values"][first:last]
        counts = {"kept": 0, "clamped": 0, "dropped": 0}
        kept = []
        for x in v:
            what, value = judge(lane["unit"], x)
            counts[what] += 1
            if value is not None:
                kept.append(value)
        out["lanes"].append({
            "study": path, "name": name, "unit": lane["unit"], "t_s": t, "values": v,
            "expect": {**counts, "max_kept": max(kept) if kept else None, "sum_kept": math.fsum(kept)}})
json.dump(out, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
