#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Does where a kernel's buffers land in device memory change its time? The Triton worker A/As
(bench/results/2026-12-02-h200-worker-arms-2) found the second worker process of an identical
command about 1.3 % faster than the first. In ONE process this allocates --sets copies of the
example's inputs and output (the same values: the same seed), one after another as two worker
processes would, and times the same kernel on each in rotation (hot, --launches back to back between
one CUDA event pair, as kwb_worker's hot mode), --rounds times. A placement effect shows as a set
that is consistently slower than another; none means the A/A effect comes from the processes
themselves. Prints one JSON object: per set, the median time per launch and its ratio to set 0, and
the number of rounds in which set 1 beat set 0."""
import argparse
import json
import os
import statistics
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "examples", "triton_matmul"))
sys.path.insert(0, os.path.join(here, "python"))
import matmul  # noqa: E402
import kwb_worker as kw  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--sets", type=int, default=3)
    ap.add_argument("--launches", type=int, default=53)
    ap.add_argument("--rounds", type=int, default=40)
    args = ap.parse_args()
    params = kw.Params({p.name: p.default for p in matmul.kernel.params})
    params.update(M=args.size, N=args.size, K=args.size)
    states = [matmul.setup(params, seed=1) for _ in range(args.sets)]
    for s in states:
        matmul.run(s)
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = [[] for _ in states]
    for r in range(args.rounds):
        order = list(range(args.sets)) if r % 2 == 0 else list(reversed(range(args.sets)))
        for i in order:
            start.record()
            for _ in range(args.launches):
                matmul.run(states[i])
            stop.record()
            stop.synchronize()
            times[i].append(start.elapsed_time(stop) / args.launches)
    medians = [statistics.median(t) for t in times]
    print(json.dumps({
        "size": args.size, "launches": args.launches, "rounds": args.rounds,
        "addresses": [hex(s.a.data_ptr()) for s in states],
        "median_ms": medians,
        "ratio_to_set0": [m / medians[0] for m in medians],
        "rounds_set1_faster_than_set0": sum(b < a for a, b in zip(times[0], times[1])) if args.sets > 1 else None,
    }, indent=1))


if __name__ == "__main__":
    main()
