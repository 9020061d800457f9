#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Per study and arm: median (min-max, n) of the tiny_llm serving metrics over the non-warm-up samples.
# Usage: summarise_tiny_llm.py STUDY.json... (the GPU machine's call scripts ran it as summ.py).
import json, statistics, sys
for f in sys.argv[1:]:
    try:
        d = json.load(open(f))
    except Exception as ex:
        print(f, "unreadable", ex); continue
    for e in d["experiments"]:
        arms = {}
        for s in e.get("samples", []):
            if s.get("warmup") or s.get("discarded"):
                continue
            arms.setdefault(s["arm"], []).append(s)
        v = e.get("verdict") or {}
        print(f.split("/")[-1], e["id"], "verdict:", json.dumps(v)[:300])
        for arm, ss in arms.items():
            params = next((a.get("params") for a in e["arms"] if a["name"] == arm), {})
            row = {"arm": arm, "graph": params.get("cuda_graph"), "splits": params.get("splits"), "n": len(ss),
                   "clock_mhz_min": round(min(x.get("clock_mhz", 0) for x in ss))}
            for k in ("itl_p50_ms", "itl_p99_ms", "ttft_ms", "tok_s", "step_mb", "step_gbs"):
                xs = [x["metrics"][k] for x in ss if k in x.get("metrics", {})]
                if xs:
                    row[k] = [round(statistics.median(xs), 4), round(min(xs), 4), round(max(xs), 4)]
            print("  ", json.dumps(row))
