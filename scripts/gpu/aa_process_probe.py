#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where does the Triton worker A/A's arm effect come from? (issue 27; bench/results/2026-12-02-h200-
worker-arms-2: the second worker process of one identical command timed ~1.3 % faster, at 1980 MHz.)

Starts --procs child processes of the same matmul (same seed, as kwb's worker arms), then drives them
in rotation (each order of the rotation equally often) as kwb drives worker arms: one request at a
time, the others idle. Each request times --launches hot launches with an event after every launch,
so a process's time splits into its first launch (start event to the first kernel's end: includes
the host's latency to enqueue it) and the rest (the kernels back to back). Every request is done in
two ways, alternated: plain (kwb_worker's hot mode today: the GPU idle when the start event is
recorded) and prerolled (a spin kernel of --preroll-us queued first, so the launches are queued
while it runs, as nvbench's blocking kernel). A per-process difference only in the first launch and
only without preroll is host latency inside the timed region; one in the back-to-back launches is
the GPU's. Prints one JSON object."""
import argparse
import json
import os
import statistics
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))


def child(args) -> None:
    import torch
    sys.path.insert(0, os.path.join(here, "examples", "triton_matmul"))
    sys.path.insert(0, os.path.join(here, "python"))
    import matmul  # noqa: E402
    import kwb_worker as kw  # noqa: E402
    params = kw.Params({p.name: p.default for p in matmul.kernel.params})
    params.update(M=args.size, N=args.size, K=args.size)
    state = matmul.setup(params, seed=1)
    matmul.run(state)
    torch.cuda.synchronize()
    clock_khz = torch.cuda.get_device_properties(0).clock_rate if hasattr(
        torch.cuda.get_device_properties(0), "clock_rate") else 1980000
    events = [torch.cuda.Event(enable_timing=True) for _ in range(args.launches + 1)]
    print("ready", flush=True)
    for line in sys.stdin:
        preroll = line.strip() == "preroll"
        torch.cuda.synchronize()
        if preroll:
            torch.cuda._sleep(int(args.preroll_us * clock_khz / 1000))
        events[0].record()
        for i in range(args.launches):
            matmul.run(state)
            events[i + 1].record()
        events[-1].synchronize()
        per = [events[i].elapsed_time(events[i + 1]) for i in range(args.launches)]
        print(json.dumps({"first": per[0], "rest": sum(per[1:]) / (len(per) - 1),
                          "mean": sum(per) / len(per)}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--launches", type=int, default=53)
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--preroll-us", type=float, default=2000)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--size", str(args.size),
           "--launches", str(args.launches), "--preroll-us", str(args.preroll_us)]
    procs = []
    for _ in range(args.procs):  # started one after another, as kwb starts its arms' workers
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert p.stdout.readline().strip() == "ready"
        procs.append(p)
    results = {(i, m): [] for i in range(args.procs) for m in ("plain", "preroll")}
    for r in range(args.rounds):
        order = [(r + k) % args.procs for k in range(args.procs)]
        for mode in (("plain", "preroll") if r % 2 == 0 else ("preroll", "plain")):
            for i in order:
                procs[i].stdin.write(mode + "\n")
                procs[i].stdin.flush()
                results[(i, mode)].append(json.loads(procs[i].stdout.readline()))
    for p in procs:
        p.stdin.close()
        p.wait()
    out = {"size": args.size, "launches": args.launches, "rounds": args.rounds, "procs": {}}
    base = {m: statistics.median(x["mean"] for x in results[(0, m)]) for m in ("plain", "preroll")}
    for (i, mode), xs in results.items():
        med = {k: statistics.median(x[k] for x in xs) for k in ("first", "rest", "mean")}
        med["mean_vs_proc0_pct"] = 100 * (med["mean"] / base[mode] - 1)
        med["n"] = len(xs)
        out["procs"].setdefault(f"proc{i} (started {i + 1})", {})[mode] = med
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
