# SPDX-License-Identifier: GPL-3.0-or-later
"""What a user's file declares: the kernel, its parameters and its extra metrics.

A user file builds one :class:`Kernel` from plain callables. The helper owns everything else
(the protocol, timing, the NaN poison, the output file), so the user's code never sees kwb.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Union

Scalar = Union[int, float, str]
PerLaunch = Union[None, int, float, Callable[["Params"], Optional[float]]]


def _is_number(value: Any) -> bool:
    # bool is an int in Python; a JSON true is never a parameter value.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Param:
    """One parameter of the kernel: kwb's `--param` / `--vary` set it, `describe` reports it.

    The default fixes the type: an int parameter takes integral numbers (4096, 4096.0, "4096"),
    a float one any number, a str one strings. `values`, when given, are the only allowed ones,
    so a typo in a study is refused when the arm is prepared rather than measured.
    """

    name: str
    default: Scalar
    values: Optional[Sequence[Scalar]] = None
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError("Param: the name must be a non-empty string")
        if not (_is_number(self.default) or isinstance(self.default, str)):
            raise TypeError(f"Param {self.name}: the default must be an int, a float or a str, "
                            f"not {type(self.default).__name__}")
        if isinstance(self.default, float) and not math.isfinite(self.default):
            raise TypeError(f"Param {self.name}: the default must be finite")
        if self.values is not None:
            values = tuple(self.coerce(v, check_values=False) for v in self.values)
            object.__setattr__(self, "values", values)
            if self.default not in values:
                raise ValueError(f"Param {self.name}: the default {self.default!r} is not one of {list(values)}")

    def coerce(self, value: Any, check_values: bool = True) -> Scalar:
        """The value as this parameter's type; ValueError with a one-line reason otherwise."""
        result: Scalar
        if isinstance(self.default, str):
            if isinstance(value, str):
                result = value
            elif _is_number(value):
                result = str(value)
            else:
                raise ValueError(f"parameter {self.name}: expected a string, got {value!r}")
        elif isinstance(self.default, int):
            result = self._integer(value)
        else:
            result = self._number(value)
        if check_values and self.values is not None and result not in self.values:
            raise ValueError(f"parameter {self.name}: {value!r} is not one of {list(self.values)}")
        return result

    def _number(self, value: Any) -> float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise ValueError(f"parameter {self.name}: expected a number, got {value!r}") from None
        if not _is_number(value) or not math.isfinite(value):
            raise ValueError(f"parameter {self.name}: expected a number, got {value!r}")
        return float(value)

    def _integer(self, value: Any) -> int:
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
        number = self._number(value)
        if number != int(number):
            raise ValueError(f"parameter {self.name}: expected an integer, got {value!r}")
        return int(number)

    def describe(self) -> Dict[str, Any]:
        entry: Dict[str, Any] = {"name": self.name, "default": self.default}
        if self.values is not None:
            entry["values"] = list(self.values)
        if self.description:
            entry["description"] = self.description
        return entry


@dataclass(frozen=True)
class Metric:
    """An extra metric beside time_ms, reported by `Kernel.metric_values` after every `time`."""

    name: str
    unit: str = ""
    direction: str = "lower"

    def __post_init__(self) -> None:
        if self.direction not in ("lower", "higher"):
            raise ValueError(f"Metric {self.name}: direction must be 'lower' or 'higher'")

    def describe(self) -> Dict[str, Any]:
        return {"name": self.name, "unit": self.unit, "direction": self.direction}


class Params(dict):
    """The arm's parameter values: a dict that also reads as attributes (`p.BLOCK_K`)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no parameter {name!r} (have: {', '.join(self)})") from None


@dataclass
class Kernel:
    """The user's kernel, as the helper drives it.

    setup(params, seed) -> state   allocates and fills inputs drawn from `seed` (called by
                                   `prepare`, and again with a fresh seed by every `verify`)
    run(state)                     one launch; asynchronous GPU work is fine, the helper syncs
    output(state) -> array         the buffer `run` writes (numpy, torch, cupy, list): the helper
                                   fills it with NaN before the verify launch and writes it out
    reference(state) -> array      optional: the right answer for the same inputs
    flop_per_launch, bytes_per_launch: numbers, or functions of the params (roofline, SOL guard)
    tolerance                      an element passes when |out - ref| <= tolerance * (1 + |ref|)
    device                         "auto" (CUDA when the file imported torch or cupy and a GPU is
                                   usable), "cuda" or "cpu"
    """

    name: str
    setup: Callable[[Params, int], Any]
    run: Callable[[Any], Any]
    output: Callable[[Any], Any]
    reference: Optional[Callable[[Any], Any]] = None
    params: Sequence[Param] = ()
    flop_per_launch: PerLaunch = None
    bytes_per_launch: PerLaunch = None
    tolerance: float = 1e-5
    metrics: Sequence[Metric] = ()
    metric_values: Optional[Callable[[Any, float], Mapping[str, float]]] = None
    version: Optional[str] = None
    device: str = "auto"
    _by_name: Dict[str, Param] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError("Kernel: the name must be a non-empty string")
        for role in ("setup", "run", "output"):
            if not callable(getattr(self, role)):
                raise TypeError(f"Kernel {self.name}: {role} must be callable")
        if self.reference is not None and not callable(self.reference):
            raise TypeError(f"Kernel {self.name}: reference must be callable or None")
        if self.device not in ("auto", "cuda", "cpu"):
            raise ValueError(f"Kernel {self.name}: device must be 'auto', 'cuda' or 'cpu'")
        if not (_is_number(self.tolerance) and self.tolerance >= 0):
            raise ValueError(f"Kernel {self.name}: tolerance must be a number >= 0")
        self.params = tuple(self.params)
        self.metrics = tuple(self.metrics)
        for p in self.params:
            if not isinstance(p, Param):
                raise TypeError(f"Kernel {self.name}: params must be kwb_worker.Param, got {p!r}")
            if p.name in self._by_name:
                raise ValueError(f"Kernel {self.name}: parameter {p.name} is declared twice")
            self._by_name[p.name] = p

    def resolve(self, given: Mapping[str, Any]) -> Params:
        """Every declared parameter's value: `given` coerced and checked, defaults for the rest."""
        unknown = [name for name in given if name not in self._by_name]
        if unknown:
            have = ", ".join(self._by_name) or "none"
            raise ValueError(f"unknown parameter {unknown[0]} (this worker has: {have})")
        return Params((p.name, p.coerce(given[p.name]) if p.name in given else p.default) for p in self.params)

    def per_launch(self, which: str, params: Params) -> Optional[float]:
        value = getattr(self, which)
        if callable(value):
            value = value(params)
        if value is None:
            return None
        if not _is_number(value) or not math.isfinite(value) or value < 0:
            raise ValueError(f"{which} must be a finite number >= 0 or None, got {value!r}")
        return float(value)
