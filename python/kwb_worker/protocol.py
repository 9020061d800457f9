# SPDX-License-Identifier: GPL-3.0-or-later
"""The request loop of docs/worker-protocol.md (version 1): one JSON object per line, in and out.

kwb reads the worker's stdout as the protocol and nothing else, while Triton, torch and the
user's own `print` write to stdout freely. So before anything of the user's is imported the
protocol moves to private duplicates of fds 0 and 1; fd 1 then points at stderr (what libraries
print lands in kwb's stderr tail) and fd 0 at /dev/null (nothing can eat a request).
"""

from __future__ import annotations

import json
import math
import os
import sys
import traceback
from typing import Any, BinaryIO, Callable, Dict, Optional, Tuple

from . import arrays
from .device import select_backend
from .kernel import Kernel, Params

PROTOCOL = 1
MAX_MESSAGE_BYTES = 1 << 20  # kMaxMessageBytes: a longer line is a fault, both ways


class RequestError(Exception):
    """A request that cannot be served; its message is the one-line `error` of the answer."""


class Channel:
    """The protocol's two byte streams, on private fds that the user's code does not know."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self._reader = reader
        self._writer = writer

    @classmethod
    def take_std_fds(cls) -> "Channel":
        """Moves the protocol off fds 0 and 1 (see the module's docstring); call it first."""
        sys.stdout.flush()
        proto_in = os.dup(0)
        proto_out = os.dup(1)
        os.dup2(2, 1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        for fd in (proto_in, proto_out):
            os.set_inheritable(fd, False)  # a subprocess the user starts must not hold them
        sys.stdout = sys.stderr  # Python-level prints: unbuffered-ish and in order with stderr
        return cls(os.fdopen(proto_in, "rb", buffering=1 << 16), os.fdopen(proto_out, "wb", buffering=0))

    def read(self) -> Tuple[Optional[bytes], bool]:
        """The next request line without its newline, and whether it was over the size limit.

        (None, False) at end of input. An oversized line is read to its end and dropped, so the
        next request is still found at a line start.
        """
        line = self._reader.readline(MAX_MESSAGE_BYTES + 1)
        if not line:
            return None, False
        if len(line) > MAX_MESSAGE_BYTES and not line.endswith(b"\n"):
            while True:
                rest = self._reader.readline(MAX_MESSAGE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    return b"", True
        return line.rstrip(b"\n").rstrip(b"\r"), False

    def write(self, message: Dict[str, Any]) -> None:
        try:
            data = json.dumps(_finite(message), allow_nan=False, separators=(",", ":"), ensure_ascii=False)
            line = data.encode("utf-8")
        except (TypeError, ValueError) as exc:  # a user's metric that is no number, say: still one answer
            line = json.dumps({"id": message.get("id"), "ok": False,
                               "error": f"the answer cannot be written as JSON: {exc}"}).encode("utf-8")
        self._writer.write(line + b"\n")


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: a non-finite number is answered as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def one_line(exc: BaseException, user_file: Optional[str] = None) -> str:
    """`Type: message (file.py:42 in run)`: one line, naming the user's innermost frame."""
    text = " ".join(str(exc).split()) or "(no message)"
    line = f"{type(exc).__name__}: {text}"
    if len(line) > 400:
        line = line[:397] + "..."
    if user_file:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if _same_file(f.filename, user_file)]
        if frames:
            f = frames[-1]
            line += f" ({os.path.basename(f.filename)}:{f.lineno} in {f.name})"
    return line


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _integer(request: Dict[str, Any], key: str, minimum: Optional[int] = None) -> int:
    value = request.get(key)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RequestError(f"'{key}' must be an integer, got {json.dumps(value)}")
    if minimum is not None and value < minimum:
        raise RequestError(f"'{key}' must be at least {minimum}, got {value}")
    return value


class Worker:
    """Answers requests for one kernel; every failure is an `ok: false` answer, never an exit."""

    def __init__(self, kernel: Optional[Kernel], user_file: Optional[str] = None,
                 load_error: Optional[str] = None,
                 backend_factory: Callable[[str], Any] = select_backend) -> None:
        self._kernel = kernel
        self._user_file = user_file
        self._broken = load_error
        self._backend: Any = None
        if kernel is not None and load_error is None:
            try:
                self._backend = backend_factory(kernel.device)
            except Exception as exc:  # a bad KWB_DEVICE, no driver: every request says why
                traceback.print_exc(file=sys.stderr)
                self._broken = "device: " + one_line(exc)
        self._params: Optional[Params] = None
        self._state: Any = None
        self.released = False

    # One request in, one answer out.
    def answer(self, line: bytes, oversized: bool = False) -> Dict[str, Any]:
        request_id: Any = None
        try:
            if oversized:
                raise RequestError(f"request line over {MAX_MESSAGE_BYTES} bytes")
            request = self._parse(line)
            request_id = request.get("id")
            if isinstance(request_id, float) and request_id.is_integer():
                request_id = int(request_id)
            if isinstance(request_id, bool) or not isinstance(request_id, int):
                request_id = None
                raise RequestError("the request has no integer 'id'")
            op = request.get("op")
            if not isinstance(op, str):
                raise RequestError("the request has no string 'op'")
            handler = self._handlers().get(op)
            if handler is None:
                raise RequestError(f"unknown op '{op}' (protocol {PROTOCOL}: {', '.join(self._handlers())})")
            if self._broken is not None and op != "release":
                raise RequestError(self._broken)
            fields = handler(request)
            return {"id": request_id, "ok": True, **fields}
        except RequestError as exc:
            return {"id": request_id, "ok": False, "error": " ".join(str(exc).split())}
        except Exception as exc:  # the user's code raised: report it in one line, keep serving
            traceback.print_exc(file=sys.stderr)
            return {"id": request_id, "ok": False, "error": one_line(exc, self._user_file)}
        finally:
            sys.stderr.flush()

    @staticmethod
    def _parse(line: bytes) -> Dict[str, Any]:
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise RequestError("the request is not UTF-8") from None

        def no_constant(name: str) -> Any:
            raise ValueError(f"{name} is not JSON")

        try:
            request = json.loads(text, parse_constant=no_constant)
        except ValueError as exc:
            raise RequestError(f"malformed JSON: {' '.join(str(exc).split())}") from None
        try:  # a lone surrogate escape (\ud83d) parses, but no answer echoing it could be UTF-8
            json.dumps(request, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise RequestError("malformed JSON: a lone surrogate in a \\u escape") from None
        if not isinstance(request, dict):
            raise RequestError("the request is not a JSON object")
        return request

    def _handlers(self) -> Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]]:
        return {
            "hello": self._hello,
            "describe": self._describe,
            "prepare": self._prepare,
            "verify": self._verify,
            "time": self._time,
            "release": self._release,
        }

    def _hello(self, request: Dict[str, Any]) -> Dict[str, Any]:
        protocol = _integer(request, "protocol")
        if protocol != PROTOCOL:
            raise RequestError(f"protocol {protocol} is not spoken here (this worker speaks {PROTOCOL})")
        from . import __version__

        return {"protocol": PROTOCOL, "worker": self._kernel.name, "version": self._kernel.version or __version__}

    def _describe(self, request: Dict[str, Any]) -> Dict[str, Any]:
        k = self._kernel
        answer: Dict[str, Any] = {
            "params": [p.describe() for p in k.params],
            "device": self._backend.describe(),
            "timer": self._backend.timer,
            "has_reference": k.reference is not None,
        }
        if k.metrics:
            answer["metrics"] = [m.describe() for m in k.metrics]
        return answer

    def _prepare(self, request: Dict[str, Any]) -> Dict[str, Any]:
        given = request.get("params", {})
        if not isinstance(given, dict):
            raise RequestError("'params' must be an object")
        seed = _integer(request, "seed")
        try:
            params = self._kernel.resolve(given)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        self._params = None
        self._state = None  # the previous arm's buffers go before the new ones are allocated
        state = self._kernel.setup(params, seed)
        # One launch here, synchronised: a first Triton compile or a lazy module load happens in
        # prepare (300 s), never inside a timed call that calibration would read as one slow launch.
        self._kernel.run(state)
        self._backend.synchronize()
        self._params, self._state = params, state
        return {
            "flop_per_launch": self._kernel.per_launch("flop_per_launch", params),
            "bytes_per_launch": self._kernel.per_launch("bytes_per_launch", params),
        }

    def _require_prepared(self, op: str) -> None:
        if self._state is None:
            raise RequestError(f"'{op}' before a successful 'prepare'")

    def _verify(self, request: Dict[str, Any]) -> Dict[str, Any]:
        self._require_prepared("verify")
        seed = _integer(request, "seed")
        path = request.get("output")
        if not isinstance(path, str) or not path:
            raise RequestError("'output' must be a file path")
        k = self._kernel
        state = k.setup(self._params, seed)  # fresh inputs from kwb's seed, not prepare's
        buf = k.output(state)
        arrays.fill_nan(buf)
        if not arrays.all_nan(arrays.host_values(k.output(state))):
            raise RequestError("output(state) must return the buffer run() writes, not a copy: "
                               "the NaN written into it did not show")
        k.run(state)
        self._backend.synchronize()
        values = arrays.host_values(k.output(state))
        with open(path, "wb") as f:
            f.write(arrays.float32_bytes(values))
        answer: Dict[str, Any] = {"elements": len(values), "dtype": "float32"}
        if k.reference is not None:
            expected = k.reference(state)
            self._backend.synchronize()
            answer["reference"] = arrays.compare(values, arrays.host_values(expected), k.tolerance).answer(k.tolerance)
        return answer

    def _time(self, request: Dict[str, Any]) -> Dict[str, Any]:
        self._require_prepared("time")
        launches = _integer(request, "launches", minimum=1)
        cold = request.get("cold", False)
        if not isinstance(cold, bool):
            raise RequestError("'cold' must be true or false")
        state = self._state
        run = self._kernel.run

        def launch() -> None:
            run(state)

        answer: Dict[str, Any] = {}
        if cold:
            per_launch = self._backend.time_cold(launch, launches)
            answer["total_ms"] = sum(per_launch)
            answer["per_launch_ms"] = per_launch
        else:
            answer["total_ms"] = self._backend.time_hot(launch, launches)
        if self._kernel.metric_values is not None:
            values = self._kernel.metric_values(state, answer["total_ms"] / launches)
            answer["metrics"] = {str(name): float(v) for name, v in dict(values).items()}
        return answer

    def _release(self, request: Dict[str, Any]) -> Dict[str, Any]:
        self._state = None
        self._params = None
        self.released = True
        return {}


def serve(channel: Channel, worker: Worker) -> int:
    """Answers requests until `release` or the end of input; the exit status is 0 for both."""
    while True:
        try:
            line, oversized = channel.read()
        except OSError:
            return 0
        if line is None:
            return 0
        try:
            channel.write(worker.answer(line, oversized))
        except BrokenPipeError:
            return 0
        if worker.released:
            return 0
