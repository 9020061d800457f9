# SPDX-License-Identifier: GPL-3.0-or-later
"""The Triton matmul as a command arm: one process per repetition, as a user's own benchmark script.

What a user without worker arms writes (issue 27's starting point): start Python, import torch and
Triton, compile (Triton's disk cache makes later starts cheaper), set up the inputs, time
`--launches` back-to-back launches between one CUDA event pair, print Google Benchmark JSON with the
time per launch, and exit. `scripts/gpu/worker_studies.sh wall` runs it as both arms of a command
study beside the same A/B as worker arms, to measure what a process start per repetition costs.
"""

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matmul  # noqa: E402  (the worker example's own kernel and setup)

import kwb_worker as kw  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096, help="M = N = K")
    ap.add_argument("--block-k", type=int, default=64)
    ap.add_argument("--launches", type=int, default=50)
    args = ap.parse_args()
    params = kw.Params({p.name: p.default for p in matmul.kernel.params})
    params.update(M=args.size, N=args.size, K=args.size, BLOCK_K=args.block_k)
    state = matmul.setup(params, seed=1)
    matmul.run(state)  # compiles (or loads Triton's cache) outside the timed region
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(args.launches):
        matmul.run(state)
    stop.record()
    stop.synchronize()
    per_launch_ms = start.elapsed_time(stop) / args.launches
    # One name for both arms: the arms differ in BLOCK_K, not in what they measure.
    print(json.dumps({"context": {"executable": "as_command.py"},
                      "benchmarks": [{"name": "triton_matmul", "run_type": "iteration",
                                      "iterations": args.launches, "real_time": per_launch_ms,
                                      "cpu_time": per_launch_ms, "time_unit": "ms"}]}))


if __name__ == "__main__":
    main()
