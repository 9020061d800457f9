#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summary of scripts/gpu/two_gpu_grid.sh: wall seconds per run, the speedup of two GPUs over
one (each pair of runs, and the medians), and every cell's verdict, delta and CI with the GPU
that ran it, from the studies themselves."""
import json, re, statistics, sys
from pathlib import Path

d = Path(sys.argv[1])
times = {}
for line in (d / "times.txt").read_text().splitlines():
    m = re.match(r"(\S+) (\d+) rc=(\d+) wall_s=([0-9.]+)", line)
    if m:
        times.setdefault(m[1], {})[int(m[2])] = {"rc": int(m[3]), "wall_s": float(m[4])}

def cells(path):
    s = json.loads(path.read_text())
    out = []
    for e in s["experiments"]:
        v = e.get("verdict") or {}
        fv = e.get("final_verdict") or {}
        dev = e.get("device") or {}
        pl = e.get("placement") or {}
        out.append({"id": e["id"], "status": e["status"], "sample_verdict": v.get("verdict"),
                    "final_verdict": fv.get("verdict"), "delta_pct": v.get("delta_pct"),
                    "ci95_delta_pct": v.get("ci95_delta_pct"), "n": [v.get("n_baseline"), v.get("n_treatment")],
                    "gpu_index": dev.get("index"), "gpu_uuid": dev.get("uuid"), "gpu_model": dev.get("name", dev.get("model")),
                    "driver": dev.get("driver"), "placement": pl})
    interaction = (s.get("grids") or [{}])[0].get("interaction")
    return {"cells": out, "interaction": (interaction or {}).get("summary")}

runs = {}
for mode, per in times.items():
    for i, t in per.items():
        runs[f"{mode}-{i}"] = dict(t, **cells(d / f"{mode}-{i}.json"))
pairs = [times["one-gpu"][i]["wall_s"] / times["two-gpus"][i]["wall_s"]
         for i in sorted(times.get("two-gpus", {})) if i in times.get("one-gpu", {})]
two = [t["wall_s"] for t in times.get("two-gpus", {}).values()]
one = [t["wall_s"] for t in times.get("one-gpu", {}).values()]
print(json.dumps({
    "wall_s": {"two_gpus": two, "one_gpu": one},
    "speedup_per_pair": pairs,
    "speedup_of_medians": statistics.median(one) / statistics.median(two) if one and two else None,
    "runs": runs,
}, indent=1))
