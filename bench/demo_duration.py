#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""How long the bundled demo's run takes (issue 31: sized to be watched, about 15 s on 2 cores).

Runs `kwb run COPY --new-attempt` on fresh copies of resources/studies/demo.json, --n times, one after
the other, and prints one JSON object: each run's wall time, the median and range, the machine's
cores and CPU, the kwb used. The window's Run is this same `kwb run` child.
Usage: bench/demo_duration.py KWB [--n 5] > duration.json
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kwb")
    ap.add_argument("--n", type=int, default=5)
    args = ap.parse_args()
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.n):
            study = os.path.join(tmp, f"demo-{i}.json")
            shutil.copy(os.path.join(root, "resources", "studies", "demo.json"), study)
            t0 = time.monotonic()
            run = subprocess.run([args.kwb, "run", study, "--new-attempt"], capture_output=True, text=True)
            walls.append(time.monotonic() - t0)
            if run.returncode != 0:
                raise SystemExit(f"demo_duration: kwb run exited {run.returncode}: {run.stderr.strip()[-300:]}")
    print(json.dumps({
        "what": "kwb run of resources/studies/demo.json (a new attempt on a fresh copy), wall seconds",
        "command": f"bench/demo_duration.py {args.kwb} --n {args.n}",
        "cores": os.cpu_count(),
        "cpu": cpu_name(),
        "wall_s": [round(w, 3) for w in walls],
        "median_s": round(statistics.median(walls), 3),
        "min_s": round(min(walls), 3),
        "max_s": round(max(walls), 3),
        "n": len(walls),
    }, indent=1))


if __name__ == "__main__":
    main()
