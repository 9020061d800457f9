#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summarises aa_bias.sh: per family (copy/gemm x abba/random/3arm) each non-baseline arm's delta
against the baseline (time, + = slower) with its sign counts, and the schedule's effects pooled
over the family: each repetition's time over its study's median, grouped by arm, by whether it
follows an arm switch, and for the first timed repetition; mean SM clock and power per arm; how
many studies' arms shared their device buffers (the study's shared_buffers)."""
import json
import os
import statistics
import sys

folder = sys.argv[1]


def describe(xs):
    if not xs:
        return None
    return {"n": len(xs), "mean": statistics.fmean(xs), "median": statistics.median(xs),
            "min": min(xs), "max": max(xs), "sd": statistics.stdev(xs) if len(xs) > 1 else 0.0}


families = {}
for name in sorted(os.listdir(folder)):
    if not name.endswith(".json") or name == "summary.json":
        continue
    doc = json.load(open(os.path.join(folder, name)))
    e = doc["experiments"][0]
    fam = families.setdefault(name[:-5].rsplit("-", 1)[0], {"studies": [], "pooled": {}})
    samples = sorted((s for s in e.get("samples", []) if not s.get("warmup")), key=lambda s: s["position"])
    if not samples:
        fam["studies"].append({"study": name, "status": e.get("status"), "error": e.get("error"),
                               "shared_buffers": e.get("shared_buffers")})
        continue
    arms = [a["name"] for a in e["arms"]]
    times = {a: [s["metrics"]["time_ms"] for s in samples if s["arm"] == a] for a in arms}
    base = statistics.fmean(times[arms[0]])
    med = statistics.median(s["metrics"]["time_ms"] for s in samples)
    row = {"study": name, "verdict": (e.get("verdict") or {}).get("verdict"),
           "aa": ((e.get("verdict") or {}).get("aa") or {}).get("verdict") if isinstance((e.get("verdict") or {}).get("aa"), dict) else None,
           "delta_time_pct": {a: 100.0 * (statistics.fmean(times[a]) - base) / base for a in arms[1:]},
           "order": [s["arm"][0] for s in samples], "shared_buffers": e.get("shared_buffers")}
    fam["studies"].append(row)
    pooled = fam["pooled"]
    prev = None
    for i, s in enumerate(samples):
        rel = s["metrics"]["time_ms"] / med
        keys = ["arm:" + s["arm"], "after_switch" if prev != s["arm"] else "repeat", "block_pos:%d" % (i % 4)]
        if i == 0:
            keys.append("first_timed:" + s["arm"])
        for k in keys:
            pooled.setdefault(k, []).append(rel)
        for field in ("clock_mhz", "power_w"):
            if field in s:
                pooled.setdefault("%s:%s" % (field, s["arm"]), []).append(s[field])
        prev = s["arm"]

summary = {}
for fam, f in families.items():
    deltas = {}
    for row in f["studies"]:
        for a, d in row.get("delta_time_pct", {}).items():
            deltas.setdefault(a, []).append(d)
    summary[fam] = {
        "studies": len(f["studies"]),
        "verdicts": sorted(str(r.get("verdict")) for r in f["studies"]),
        "shared_buffers": {str(v).lower(): sum(r.get("shared_buffers") == v for r in f["studies"])
                           for v in (True, False, None)},
        "delta_time_pct": {a: dict(describe(d), slower=sum(x > 0 for x in d), faster=sum(x < 0 for x in d))
                           for a, d in deltas.items()},
        "relative_time": {k: describe(v) for k, v in sorted(f["pooled"].items()) if not k.startswith(("clock", "power"))},
        "clock_power": {k: describe(v) for k, v in sorted(f["pooled"].items()) if k.startswith(("clock", "power"))},
        "per_study": f["studies"],
    }
print(json.dumps(summary, indent=1))
