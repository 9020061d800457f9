#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summarises the studies kwb_studies.sh ran: per study its verdicts, n, delta and CI, clocks
and throttled repetitions; for the A/A families the count of verdicts other than NOISE."""
import json
import os
import statistics
import sys

folder = sys.argv[1]
studies = {}
for name in sorted(os.listdir(folder)):
    if not name.endswith(".json"):
        continue
    try:
        doc = json.load(open(os.path.join(folder, name)))
    except ValueError:
        continue  # a study cut short while it was written (the call's time ran out), or not JSON
    if not isinstance(doc, dict) or not doc.get("experiments"):
        continue  # not a study (triton-dobench.json, the summary itself)
    e = doc["experiments"][0]
    v = e.get("verdict") or {}
    samples = [s for s in e.get("samples", []) if not s.get("warmup")]
    clocks = [s["clock_mhz"] for s in samples if "clock_mhz" in s]
    # Host time per repetition outside the timed region: wall time minus launches x time per launch
    # (NVML reads, the stream sync, the save after each repetition is not in duration_s).
    metric = e.get("metric", "time_ms")
    overhead = [1e3 * s["duration_s"] - s["launches"] * s["metrics"][metric] for s in samples
                if metric == "time_ms" and "launches" in s and metric in s.get("metrics", {})]
    studies[name[:-5]] = {
        "status": e.get("status"),
        "error": e.get("error"),
        "verdict": v.get("verdict"),
        "final_verdict": (e.get("final_verdict") or {}).get("verdict"),
        "n": [v.get("n_baseline"), v.get("n_treatment")],
        "mean": [v.get("mean_baseline"), v.get("mean_treatment")],
        "delta_pct": v.get("delta_pct"),
        "ci95_delta_pct": v.get("ci95_delta_pct"),
        "sigma_pct": v.get("sigma_pct"),
        "launches_per_rep": e.get("launches_per_rep"),
        "checks": [a.get("check") for a in e.get("arms", [])],
        "device": e.get("device"),
        "clock_mhz": {"min": min(clocks), "median": statistics.median(clocks), "max": max(clocks)} if clocks else None,
        "throttled": sum(1 for s in samples if s.get("throttled")),
        "n_repetitions": len(samples),
        "harness_overhead_ms": {"min": min(overhead), "median": statistics.median(overhead), "max": max(overhead),
                                "n": len(overhead)} if overhead else None,
        "throttle_reasons": sorted({r for s in samples for r in s.get("throttle_reasons", [])}),
        "limitations": e.get("limitations"),
    }
families = {}
for name, s in studies.items():
    if name.startswith("aa-"):
        fam = name.rsplit("-", 1)[0]
        f = families.setdefault(fam, {"studies": 0, "not_noise": 0, "verdicts": {}, "delta_pct": []})
        f["studies"] += 1
        word = s["verdict"] or "none"
        f["verdicts"][word] = f["verdicts"].get(word, 0) + 1
        f["not_noise"] += word != "NOISE"
        if s["delta_pct"] is not None:
            f["delta_pct"].append(s["delta_pct"])
for f in families.values():
    d = f.pop("delta_pct")
    f["delta_pct"] = {"min": min(d), "median": statistics.median(d), "max": max(d)} if d else None
print(json.dumps({"aa": families, "studies": studies}, indent=1))
