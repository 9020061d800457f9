# SPDX-License-Identifier: GPL-3.0-or-later
"""The output buffer as the verify rule needs it: poisoned with NaN, read back as float32, compared.

Works on numpy, torch and cupy arrays through their own methods, and on plain lists and
array.array without numpy, so the helper itself has no dependency. The comparison rule is one
line, |out - ref| <= tolerance * (1 + |ref|), evaluated per element; a NaN never passes.
"""

from __future__ import annotations

import array
import math
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

try:  # numpy is optional: with it the host copy and the comparison are vectorised
    import numpy as _np
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _np = None


def _kind(buf: Any) -> str:
    module = type(buf).__module__.split(".")[0]
    if module == "torch":
        return "torch"
    if module == "cupy":
        return "cupy"
    if _np is not None and isinstance(buf, _np.ndarray):
        return "numpy"
    if isinstance(buf, (list, array.array)):
        return "python"
    raise TypeError(f"output(state) returned a {type(buf).__name__}; expected a numpy, torch or cupy array, "
                    "a list or an array.array")


def fill_nan(buf: Any) -> None:
    """Writes NaN over every element of `buf`, in place; a non-float buffer cannot be poisoned."""
    kind = _kind(buf)
    if kind == "torch":
        if not buf.is_floating_point():
            raise TypeError(f"output(state) must be a floating-point tensor (the NaN poison), got {buf.dtype}")
        buf.fill_(float("nan"))
    elif kind in ("numpy", "cupy"):
        if buf.dtype.kind != "f":
            raise TypeError(f"output(state) must be a floating-point array (the NaN poison), got {buf.dtype}")
        buf.fill(float("nan"))
    elif isinstance(buf, array.array):
        if buf.typecode not in ("f", "d"):
            raise TypeError(f"output(state) must be an array.array of 'f' or 'd', got '{buf.typecode}'")
        for i in range(len(buf)):
            buf[i] = math.nan
    else:
        _fill_list(buf)


def _fill_list(values: List[Any]) -> None:
    for i, v in enumerate(values):
        if isinstance(v, list):
            _fill_list(v)
        else:
            values[i] = math.nan


def _flatten(values: Sequence[Any], into: List[float]) -> List[float]:
    for v in values:
        if isinstance(v, (list, tuple)):
            _flatten(v, into)
        else:
            into.append(float(v))
    return into


def host_values(buf: Any) -> Any:
    """`buf` on the host, flat, C order: a float64 numpy array with numpy, else array.array('d')."""
    kind = _kind(buf)
    if kind == "torch":
        t = buf.detach().reshape(-1).to(device="cpu")
        if _np is not None:
            return t.double().numpy()
        return array.array("d", t.double().tolist())
    if kind == "cupy":
        return buf.reshape(-1).astype("float64").get()
    if kind == "numpy":
        return _np.asarray(buf, dtype=_np.float64).reshape(-1)
    if _np is not None:
        return _np.asarray(_flatten(buf, []), dtype=_np.float64)
    return array.array("d", _flatten(buf, []))


def float32_bytes(values: Any) -> bytes:
    """Raw little-endian float32, as docs/worker-protocol.md's `verify` asks."""
    if _np is not None and isinstance(values, _np.ndarray):
        return _np.ascontiguousarray(values, dtype="<f4").tobytes()
    out = array.array("f", values)
    if sys.byteorder != "little":
        out.byteswap()
    return out.tobytes()


def all_nan(values: Any) -> bool:
    if _np is not None and isinstance(values, _np.ndarray):
        return bool(_np.isnan(values).all())
    return all(math.isnan(v) for v in values)


@dataclass
class Comparison:
    passed: bool
    max_abs_error: Optional[float]
    max_rel_error: Optional[float]
    detail: str

    def answer(self, tolerance: float) -> Dict[str, Any]:
        entry: Dict[str, Any] = {
            "passed": self.passed,
            "max_abs_error": self.max_abs_error,
            "max_rel_error": self.max_rel_error,
            "tolerance": tolerance,
        }
        if self.detail:
            entry["detail"] = self.detail
        return entry


def compare(out: Any, ref: Any, tolerance: float) -> Comparison:
    """The output against the reference, element by element (both flat host values)."""
    if len(out) != len(ref):
        return Comparison(False, None, None, f"the reference has {len(ref)} elements, the output {len(out)}")
    if len(out) == 0:
        return Comparison(True, 0.0, 0.0, "")
    if _np is not None and isinstance(out, _np.ndarray):
        return _compare_numpy(out, _np.asarray(ref, dtype=_np.float64), tolerance)
    return _compare_python(list(out), list(ref), tolerance)


def _compare_numpy(out: Any, ref: Any, tolerance: float) -> Comparison:
    with _np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = _np.abs(out - ref)
        bad = ~(diff <= tolerance * (1.0 + _np.abs(ref)))  # NaN compares false: never passes
        finite = _np.isfinite(diff)
        nonzero = (_np.abs(ref) > 0) & finite
        max_abs = float(diff.max()) if finite.all() else None
        max_rel = float((diff[nonzero] / _np.abs(ref[nonzero])).max()) if nonzero.any() else 0.0
    failing = int(bad.sum())
    if failing == 0:
        return Comparison(True, max_abs, max_rel, "")
    first = int(_np.argmax(bad))
    return Comparison(False, max_abs, max_rel if max_abs is not None else None,
                      _failure_detail(failing, len(out), int((~_np.isfinite(out)).sum()), first,
                                      float(out[first]), float(ref[first])))


def _compare_python(out: List[float], ref: List[float], tolerance: float) -> Comparison:
    failing = 0
    non_finite = 0
    first = -1
    max_abs: Optional[float] = 0.0
    max_rel = 0.0
    for i, (o, r) in enumerate(zip(out, ref)):
        d = abs(o - r)
        if not math.isfinite(o):
            non_finite += 1
        if not math.isfinite(d):
            max_abs = None
        elif max_abs is not None:
            max_abs = max(max_abs, d)
            if r != 0:
                max_rel = max(max_rel, d / abs(r))
        if not d <= tolerance * (1.0 + abs(r)):
            failing += 1
            if first < 0:
                first = i
    if failing == 0:
        return Comparison(True, max_abs, max_rel, "")
    return Comparison(False, max_abs, max_rel if max_abs is not None else None,
                      _failure_detail(failing, len(out), non_finite, first, out[first], ref[first]))


def _failure_detail(failing: int, total: int, non_finite: int, first: int, got: float, want: float) -> str:
    text = f"{failing} of {total} elements outside the tolerance; first at index {first}: {got!r}, expected {want!r}"
    if non_finite:
        text += f"; {non_finite} output elements are NaN or infinite (not written?)"
    return text
