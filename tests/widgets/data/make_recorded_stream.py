#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes h200_gemm_stream.jsonl: the progress stream (docs/progress-stream.md) of the GEMM A/B
# recorded on the H200 (bench/results/2026-11-30-h200-kwb-studies/studies/gemm-block_n.json),
# rebuilt from the study: its samples as `sample` lines and seven of its lanes as `metric` lines,
# merged in time order. The study predates per-repetition `t_s`, so repetitions are placed as
# the live view's replay places them: wall-clock starts, the last end aligned with the lanes'
# last reading. Used by tests/widgets/tst_lane_view.cpp.
#   /usr/bin/python3 tests/widgets/data/make_recorded_stream.py
import datetime
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
STUDY = os.path.join(ROOT, "bench/results/2026-11-30-h200-kwb-studies/studies/gemm-block_n.json")
LANES = ["occupancy", "dram_pct", "sm_pct", "tensor_pct", "power", "temperature", "cpu_util"]


def when(iso):
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


study = json.load(open(STUDY))
e = study["experiments"][0]
first = min(when(s["started_at"]) for s in e["samples"])
ends = [when(s["started_at"]) - first + s["duration_s"] for s in e["samples"]]
lane_end = max(l["t_s"][-1] for l in e["lanes"] if l["t_s"])
shift = lane_end - max(ends)
lines = []
order = [s["arm"] for s in sorted(e["samples"], key=lambda s: s["position"]) if not s["warmup"]]
lines.append((-1.0, 0, {"type": "start", "v": 1, "study": "gemm-block_n.json", "experiment": e["id"],
                        "workload": e["workload"], "backend": "cuda", "metric": e["metric"], "unit": "ms",
                        "direction": "lower", "done_before": 0, "at": "2026-11-30T21:06:27.800Z",
                        "plan": {"arms": [a["name"] for a in e["arms"]], "runs_per_arm": e["plan"]["runs_per_arm"],
                                 "warmup_runs": e["plan"]["warmup_runs"], "order": order, "order_rule": "abba",
                                 "order_truncated": False, "seed": 1, "stop": "count"}}))
for s, end in zip(e["samples"], ends):
    t = round(end + shift, 6)
    lines.append((t, 1, {"type": "sample", "v": 1, "experiment": e["id"], "arm": s["arm"], "rep": s["rep"],
                         "position": s["position"], "value": s["metrics"][e["metric"]],
                         "values": s["metrics"], "duration_s": s["duration_s"], "t_s": t,
                         "warmup": s["warmup"], "flags": []}))
for l in e["lanes"]:
    if l["name"] in LANES:
        for t, v in zip(l["t_s"], l["values"]):
            lines.append((round(t, 6), 2, {"type": "metric", "v": 1, "t_s": round(t, 6), "name": l["name"],
                                           "value": v, "unit": l["unit"]}))
lines.sort(key=lambda x: (x[0], x[1]))
with open(os.path.join(HERE, "h200_gemm_stream.jsonl"), "w") as out:
    for _, _, o in lines:
        out.write(json.dumps(o, sort_keys=False, separators=(",", ":")) + "\n")
    out.write(json.dumps({"type": "end", "v": 1, "status": "done", "exit_code": 0}) + "\n")
