# SPDX-License-Identifier: GPL-3.0-or-later
"""The Triton matmul's time per launch as triton.testing.do_bench measures it, beside kwb's.

Runs on a GPU after `kwb run` of a study of examples/triton_matmul/matmul.py whose arms differ in
BLOCK_K (scripts/gpu/worker_studies.sh): for each BLOCK_K, `--medians` calls of
do_bench(run, return_mode="median") (its defaults: 25 ms warm-up, 100 ms of repetitions, L2
flushed before each), the configurations alternated call by call, against the median over the
study's judged repetitions of that arm's time_ms (kwb's cold mode: L2 flushed before each launch,
each launch timed by its own event pair). The SM clock is read after every do_bench call, and kwb
records it per repetition: a GEMM's time follows its clock, so both are also given in clock cycles
(time x clock). Without --study only do_bench is measured (the run before kwb's, in a sandwich).
Prints one JSON object.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matmul  # noqa: E402  (the example's own kernel and setup)

import kwb_worker as kw  # noqa: E402


def sm_clock_mhz() -> float:
    out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.strip()
    return float(out.splitlines()[0]) if out else float("nan")


def clocks() -> str:
    return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu",
                           "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()


def kwb_medians(study_path: str) -> dict:
    """BLOCK_K -> (median time_ms, n, median time x clock in kcycles) over the study's judged,
    successful repetitions per arm."""
    doc = json.load(open(study_path))
    e = doc["experiments"][0]
    by_arm = {a["name"]: a["params"].get("BLOCK_K") for a in e["arms"]}
    values: dict = {}
    cycles: dict = {}
    for s in e.get("samples", []):
        if s.get("warmup") or s.get("failed") or s.get("discarded") or "time_ms" not in s.get("metrics", {}):
            continue
        bk = by_arm.get(s.get("arm"))
        values.setdefault(bk, []).append(s["metrics"]["time_ms"])
        if s.get("clock_mhz"):
            cycles.setdefault(bk, []).append(s["metrics"]["time_ms"] * s["clock_mhz"])
    return {k: (statistics.median(v), len(v), statistics.median(cycles[k]) if cycles.get(k) else None)
            for k, v in values.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--block-k", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--medians", type=int, default=16)
    ap.add_argument("--study", help="the kwb study of the same configurations (none: do_bench only)")
    a = ap.parse_args()
    defaults = {p.name: p.default for p in matmul.kernel.params}
    states = {}
    for bk in a.block_k:
        values = dict(defaults, M=a.size, N=a.size, K=a.size, BLOCK_K=bk)
        states[bk] = matmul.setup(kw.Params(values), 1)
        matmul.run(states[bk])  # compiled (and cached from the study's workers) before timing
    torch.cuda.synchronize()
    before = clocks()
    medians = {bk: [] for bk in a.block_k}
    mhz = {bk: [] for bk in a.block_k}
    for _ in range(a.medians):
        for bk in a.block_k:
            medians[bk].append(triton.testing.do_bench(lambda: matmul.run(states[bk]), return_mode="median"))
            mhz[bk].append(sm_clock_mhz())
    after = clocks()
    theirs = kwb_medians(a.study) if a.study else {}
    out = {"size": a.size, "clocks_before": before, "clocks_after": after, "torch": torch.__version__,
           "triton": triton.__version__, "device": torch.cuda.get_device_name(0), "configs": {}}
    for bk in a.block_k:
        d = statistics.median(medians[bk])
        k = theirs.get(bk)
        kcycles = statistics.median(t * c for t, c in zip(medians[bk], mhz[bk]))
        out["configs"][str(bk)] = {
            "dobench_medians_ms": medians[bk], "dobench_median_ms": d,
            "dobench_spread_ms": [min(medians[bk]), max(medians[bk])],
            "dobench_sm_clock_mhz": mhz[bk], "dobench_median_kcycles": kcycles,
            "kwb_median_ms": k[0] if k else None, "kwb_n": k[1] if k else 0,
            "kwb_median_kcycles": k[2] if k else None,
            "kwb_over_dobench": k[0] / d if k else None,
            "kwb_over_dobench_cycles": k[2] / kcycles if k and k[2] else None,
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
