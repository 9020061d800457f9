# SPDX-License-Identifier: GPL-3.0-or-later
"""`python3 -m kwb_worker.drive [options] -- CMD`: try a worker once, as kwb would drive it.

Starts CMD with /bin/sh -c (KWB_WORKER_PROTOCOL, KWB_DEVICE and KWB_ARM set, as kwb sets them),
then hello, describe, prepare, verify, time hot, time cold, verify with another seed, release;
prints every request and answer and checks what the protocol promises (the output file's size,
no NaN in it, the reference passed, the per-launch list, exit 0). Any worker works, Python or C++.
Exit status 0 when every check held, 1 otherwise. For kwb's own run, use `kwb new --worker CMD`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import select
import struct
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional


class Driven:
    def __init__(self, cmd: str, device: int) -> None:
        env = dict(os.environ, KWB_WORKER_PROTOCOL="1", KWB_DEVICE=str(device), KWB_ARM="drive")
        self.proc = subprocess.Popen(["/bin/sh", "-c", cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env)
        self.next_id = 0
        self.problems: List[str] = []
        self._buffer = b""

    def ask(self, op: str, timeout_s: float, **fields: Any) -> Dict[str, Any]:
        self.next_id += 1
        request = {"op": op, "id": self.next_id, **fields}
        print(">", json.dumps(request), flush=True)
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        start = time.monotonic()
        line = self._line(timeout_s)
        elapsed = time.monotonic() - start
        if line is None:
            self.problems.append(f"{op}: no answer within {timeout_s:.0f} s (or the worker exited)")
            return {}
        shown = line if len(line) < 2000 else line[:2000] + "..."
        print(f"< {shown}   [{elapsed * 1000:.1f} ms]", flush=True)
        try:
            answer = json.loads(line)
        except ValueError:
            self.problems.append(f"{op}: the answer is not JSON")
            return {}
        if not isinstance(answer, dict) or answer.get("id") != self.next_id or not isinstance(answer.get("ok"), bool):
            self.problems.append(f"{op}: the answer is not an object with id {self.next_id} and a boolean ok")
            return {}
        if not answer["ok"]:
            self.problems.append(f"{op}: {answer.get('error')}")
        return answer

    def _line(self, timeout_s: float) -> Optional[str]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", errors="replace")

    def finish(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            status = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.problems.append("the worker did not exit within 5 s of release")
            return -1
        assert self.proc.stdout is not None
        rest = self._buffer + self.proc.stdout.read()
        if rest:
            self.problems.append(f"stdout after the last answer: {rest[:200]!r}")
        if status != 0:
            self.problems.append(f"exit status {status}")
        return status


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _check_output(d: Driven, answer: Dict[str, Any], path: str) -> None:
    if not answer.get("ok"):
        return
    elements = answer.get("elements")
    size = os.path.getsize(path) if os.path.exists(path) else -1
    if not isinstance(elements, int) or size != 4 * elements:
        d.problems.append(f"verify: the file holds {size} bytes, elements = {elements!r}")
        return
    with open(path, "rb") as f:
        data = f.read()
    bad = sum(1 for (v,) in struct.iter_unpack("<f", data) if not math.isfinite(v))
    if bad:
        d.problems.append(f"verify: {bad} of {elements} values are NaN or infinite")
    ref = answer.get("reference")
    if isinstance(ref, dict) and ref.get("passed") is not True:
        d.problems.append(f"verify: the reference did not pass: {ref.get('detail', '')}")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m kwb_worker.drive", description=__doc__.split("\n\n")[0])
    parser.add_argument("--param", action="append", default=[], metavar="K=V", help="a parameter of the worker")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--launches", type=int, default=10)
    parser.add_argument("--device", type=int, default=int(os.environ.get("KWB_DEVICE", "0") or 0))
    parser.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the worker command")
    args = parser.parse_args(argv)
    cmd = " ".join(a for a in args.cmd if a != "--") if args.cmd else ""
    if not cmd:
        parser.error("the worker command is missing (after --)")
    params = {}
    for kv in args.param:
        key, sep, value = kv.partition("=")
        if not sep:
            parser.error(f"--param {kv}: expected K=V")
        params[key] = _value(value)

    d = Driven(cmd, args.device)
    out_dir = tempfile.mkdtemp(prefix="kwb-drive-")
    d.ask("hello", 60, protocol=1)
    d.ask("describe", 60)
    if d.ask("prepare", 300, params=params, seed=args.seed).get("ok"):
        first = os.path.join(out_dir, "verify1.f32")
        _check_output(d, d.ask("verify", 300, seed=args.seed + 1, output=first), first)
        hot = d.ask("time", 600, launches=args.launches, cold=False)
        if hot.get("ok"):
            print(f"  hot:  {hot['total_ms'] / args.launches:.6g} ms per launch", flush=True)
        cold = d.ask("time", 600, launches=args.launches, cold=True)
        if cold.get("ok"):
            per = cold.get("per_launch_ms")
            if not isinstance(per, list) or len(per) != args.launches:
                d.problems.append("time cold: per_launch_ms is not one value per launch")
            print(f"  cold: {cold['total_ms'] / args.launches:.6g} ms per launch", flush=True)
        second = os.path.join(out_dir, "verify2.f32")
        _check_output(d, d.ask("verify", 300, seed=args.seed + 2, output=second), second)
    d.ask("release", 10)
    d.finish()
    for p in d.problems:
        print("problem:", p, file=sys.stderr)
    print("all checks held" if not d.problems else f"{len(d.problems)} problem(s)", file=sys.stderr)
    return 0 if not d.problems else 1


if __name__ == "__main__":
    sys.exit(main())
