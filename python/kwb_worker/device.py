# SPDX-License-Identifier: GPL-3.0-or-later
"""Where the kernel runs and how its launches are timed (docs/worker-protocol.md, `time`).

Three backends with one shape: torch and cupy time with CUDA events on the current stream and
flush the L2 with a write of twice its size; the CPU backend times with time.perf_counter_ns
(a monotonic clock, the protocol's "steady_clock") and has no cache to flush, as the C++ helper
without CUDA. The backend is chosen after the user's file is imported, from what it imported, so
a numpy kernel never pays for importing torch.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional

# A GPU whose L2 size is not reported is flushed with this much (2x the largest L2 shipped today).
_FALLBACK_FLUSH_BYTES = 512 << 20
# KWB_WORKER_PREROLL_US: a GPU spin of about this long (2000 cycles per us) before a hot repetition's
# start event (torch only; 0: none). Measured against none by scripts/gpu/aa_process_probe.py.
_PREROLL_US = float(os.environ.get("KWB_WORKER_PREROLL_US", "0") or 0)


def device_index() -> int:
    """The CUDA device kwb runs the arm on (KWB_DEVICE, default 0)."""
    text = os.environ.get("KWB_DEVICE", "0").strip() or "0"
    try:
        index = int(text)
    except ValueError:
        raise ValueError(f"KWB_DEVICE={text!r} is not a device index") from None
    if index < 0:
        raise ValueError(f"KWB_DEVICE={index} is not a device index")
    return index


def _uuid_text(raw: Any) -> Optional[str]:
    """A CUDA UUID as NVML and nvidia-smi print it ("GPU-8c1a2b3c-..."), so kwb can match the two."""
    if raw is None:
        return None
    if isinstance(raw, (bytes, bytearray)) and len(raw) == 16:
        h = raw.hex()
        text = f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
    else:
        text = str(raw)
    return text if text.startswith(("GPU-", "MIG-")) else "GPU-" + text


class CpuBackend:
    """perf_counter_ns around the launches; nothing to synchronise, no cache flushed."""

    timer = "steady_clock"

    def describe(self) -> Dict[str, Any]:
        entry: Dict[str, Any] = {"kind": "cpu"}
        name = _cpu_model()
        if name:
            entry["name"] = name
        return entry

    def synchronize(self) -> None:
        pass

    def time_hot(self, launch: Callable[[], Any], launches: int) -> float:
        start = time.perf_counter_ns()
        for _ in range(launches):
            launch()
        return (time.perf_counter_ns() - start) / 1e6

    def time_cold(self, launch: Callable[[], Any], launches: int) -> List[float]:
        times = []
        for _ in range(launches):
            start = time.perf_counter_ns()
            launch()
            times.append((time.perf_counter_ns() - start) / 1e6)
        return times


def _cpu_model() -> Optional[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


class TorchCudaBackend:
    """CUDA events on torch's current stream; the L2 flushed by zeroing a 2x-L2 byte tensor."""

    timer = "cuda_events"

    def __init__(self, torch: Any, index: int) -> None:
        self._torch = torch
        if index >= torch.cuda.device_count():
            raise ValueError(f"KWB_DEVICE={index}, but torch sees {torch.cuda.device_count()} CUDA device(s)")
        torch.cuda.set_device(index)
        self._index = index
        self._flush: Any = None
        self._events: List[Any] = []

    def describe(self) -> Dict[str, Any]:
        props = self._torch.cuda.get_device_properties(self._index)
        entry: Dict[str, Any] = {"kind": "cuda", "name": props.name, "index": self._index}
        uuid = _uuid_text(getattr(props, "uuid", None))
        if uuid:
            entry["uuid"] = uuid
        return entry

    def synchronize(self) -> None:
        self._torch.cuda.synchronize()

    def _event_pairs(self, count: int) -> List[Any]:
        while len(self._events) < 2 * count:
            self._events.append(self._torch.cuda.Event(enable_timing=True))
        return self._events

    def _flush_l2(self) -> None:
        if self._flush is None:
            props = self._torch.cuda.get_device_properties(self._index)
            l2 = int(getattr(props, "L2_cache_size", 0) or 0)
            size = 2 * l2 if l2 > 0 else _FALLBACK_FLUSH_BYTES
            self._flush = self._torch.empty(size, dtype=self._torch.uint8, device=f"cuda:{self._index}")
        self._flush.zero_()

    def time_hot(self, launch: Callable[[], Any], launches: int) -> float:
        start, stop = self._event_pairs(1)[:2]
        self.synchronize()
        if _PREROLL_US > 0:
            # A spin queued first, so the launches are queued while it runs and the host's latency
            # to enqueue the first one stays outside the events (nvbench's blocking kernel).
            self._torch.cuda._sleep(int(_PREROLL_US * 2000))
        start.record()
        for _ in range(launches):
            launch()
        stop.record()
        stop.synchronize()
        return float(start.elapsed_time(stop))

    def time_cold(self, launch: Callable[[], Any], launches: int) -> List[float]:
        events = self._event_pairs(launches)
        self.synchronize()
        for i in range(launches):
            self._flush_l2()  # enqueued before the start event: outside the timed region
            events[2 * i].record()
            launch()
            events[2 * i + 1].record()
        events[2 * launches - 1].synchronize()
        return [float(events[2 * i].elapsed_time(events[2 * i + 1])) for i in range(launches)]


class CupyBackend:
    """CUDA events on cupy's current stream; the L2 flushed by zeroing a 2x-L2 byte array."""

    timer = "cuda_events"

    def __init__(self, cupy: Any, index: int) -> None:
        self._cp = cupy
        count = cupy.cuda.runtime.getDeviceCount()
        if index >= count:
            raise ValueError(f"KWB_DEVICE={index}, but cupy sees {count} CUDA device(s)")
        cupy.cuda.Device(index).use()
        self._index = index
        self._flush: Any = None
        self._events: List[Any] = []

    def describe(self) -> Dict[str, Any]:
        props = self._cp.cuda.runtime.getDeviceProperties(self._index)
        name = props.get("name", b"")
        entry: Dict[str, Any] = {
            "kind": "cuda",
            "name": name.decode(errors="replace") if isinstance(name, bytes) else str(name),
            "index": self._index,
        }
        uuid = _uuid_text(props.get("uuid"))
        if uuid:
            entry["uuid"] = uuid
        return entry

    def synchronize(self) -> None:
        self._cp.cuda.Device(self._index).synchronize()

    def _event_pairs(self, count: int) -> List[Any]:
        while len(self._events) < 2 * count:
            self._events.append(self._cp.cuda.Event())
        return self._events

    def _stream(self) -> Any:
        return self._cp.cuda.get_current_stream()

    def _flush_l2(self) -> None:
        if self._flush is None:
            props = self._cp.cuda.runtime.getDeviceProperties(self._index)
            l2 = int(props.get("l2CacheSize", 0) or 0)
            self._flush = self._cp.empty(2 * l2 if l2 > 0 else _FALLBACK_FLUSH_BYTES, dtype=self._cp.uint8)
        self._flush.fill(0)

    def time_hot(self, launch: Callable[[], Any], launches: int) -> float:
        start, stop = self._event_pairs(1)[:2]
        self.synchronize()
        start.record(self._stream())
        for _ in range(launches):
            launch()
        stop.record(self._stream())
        stop.synchronize()
        return float(self._cp.cuda.get_elapsed_time(start, stop))

    def time_cold(self, launch: Callable[[], Any], launches: int) -> List[float]:
        events = self._event_pairs(launches)
        self.synchronize()
        for i in range(launches):
            self._flush_l2()
            events[2 * i].record(self._stream())
            launch()
            events[2 * i + 1].record(self._stream())
        events[2 * launches - 1].synchronize()
        return [float(self._cp.cuda.get_elapsed_time(events[2 * i], events[2 * i + 1])) for i in range(launches)]


def _torch_gpu() -> Any:
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch
    return None


def _cupy_gpu() -> Any:
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return None
    try:
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # no driver: cupy imports but raises on the first runtime call
        return None


def _try_import(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        pass


def select_backend(wanted: str) -> Any:
    """The backend for a kernel's `device` ("auto", "cuda", "cpu"), on KWB_DEVICE's GPU.

    "auto" looks only at what the user's file imported (torch before cupy); "cuda" imports
    them itself and fails, with the reason, when neither can reach a GPU.
    """
    if wanted == "cpu":
        return CpuBackend()
    if wanted == "cuda" and "torch" not in sys.modules and "cupy" not in sys.modules:
        _try_import("torch")
    torch = _torch_gpu()
    if torch is not None:
        return TorchCudaBackend(torch, device_index())
    if wanted == "cuda":
        _try_import("cupy")  # only where torch cannot reach a GPU: importing cupy costs time
    cupy = _cupy_gpu()
    if cupy is not None:
        return CupyBackend(cupy, device_index())
    if wanted == "cuda":
        raise RuntimeError("device 'cuda': neither torch nor cupy can use a CUDA device here")
    return CpuBackend()
