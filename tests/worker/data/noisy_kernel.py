# SPDX-License-Identifier: GPL-3.0-or-later
"""A kernel that misbehaves on purpose, for tst_worker_protocol: it prints at import time and on
every launch (through print, sys.stdout and straight to fd 1, as C extensions do), raises when
asked, can hand back a copy of its output instead of the buffer run() writes, or leave an
element unwritten. Plain Python
lists, so it needs no numpy."""

import os
import sys

import kwb_worker as kw

print("noisy: print at import")
sys.stdout.write("noisy: sys.stdout at import\n")
os.write(1, b"noisy: fd 1 at import\n")


def setup(p, seed):
    if p.fail == "setup":
        raise RuntimeError("setup failed on purpose")
    return {"out": [0.0] * 4, "fail": p.fail, "calls": 0, "seed": seed}


def run(s):
    s["calls"] += 1
    os.write(1, b"noisy: fd 1 in run\n")
    print("noisy: print in run")
    if s["fail"] == "third-launch" and s["calls"] >= 3:
        raise ZeroDivisionError("third launch failed on purpose")
    for i in range(3 if s["fail"] == "skip-last" else 4):  # skip-last: the NaN poison must show
        s["out"][i] = float(i + s["seed"] % 7)


def output(s):
    return list(s["out"]) if s["fail"] == "copy" else s["out"]


def reference(s):
    return [float(i + s["seed"] % 7) for i in range(4)]


kernel = kw.Kernel(
    name="noisy",
    params=[kw.Param("fail", "none", values=["none", "setup", "third-launch", "copy", "skip-last"])],
    setup=setup,
    run=run,
    output=output,
    reference=reference,
)
