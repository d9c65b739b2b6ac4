"""Case, the row type of the rule tables, its helpers, and the shared points.

Rows are `Case(fn, *args, domain=..., batch=3, rtol=1e-6, **kwargs)`; see cases.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple, Union

import numpy as np
import pytest

from fwdad.errors import describe
from fwdad.testing.strategies import REAL, Domain


@dataclass(init=False)
class Case:
    """`fn(*args, **kwargs)`; keyword arguments are constants."""

    fn: Callable
    args: Tuple[Any, ...]
    kwargs: Dict[str, Any]
    domain: Union[Domain, Tuple[Domain, ...]]
    batch: int
    rtol: float

    def __init__(self, fn: Callable, *args: Any,
                 domain: Union[Domain, Tuple[Domain, ...]] = REAL, batch: int = 3,
                 rtol: float = 1e-6, **kwargs: Any):
        self.fn, self.args, self.kwargs, self.domain = fn, args, kwargs, domain
        self.batch, self.rtol = batch, rtol

    @property
    def tolerances(self) -> Dict[str, float]:
        """test_rule's tolerances: a loosened rtol comes with as large a step h."""
        return {} if self.rtol == 1e-6 else {"rtol": self.rtol, "h": self.rtol}

    @property
    def is_unary(self) -> bool:
        return len(self.args) == 1 and not self.kwargs

    @property
    def scalar_only(self) -> bool:
        """The `math` module takes Python floats, not arrays."""
        return getattr(self.fn, "__module__", None) == "math"

    def domain_of(self, i: int) -> Domain:
        return self.domain[i] if isinstance(self.domain, tuple) else self.domain

    def __str__(self) -> str:
        shown = [_show(a) for a in self.args]
        shown += [f"{k}={_show(v)}" for k, v in self.kwargs.items()]
        return f"{_name(self.fn)}({', '.join(shown)})"


_PREFIXES = {"numpy.": "np.", "_operator.": "operator.", "fwdad.lang.": "lang."}


def _name(fn: Callable) -> str:
    name = describe(fn)
    for long, short in _PREFIXES.items():
        if name.startswith(long):
            return short + name[len(long):]
    return name


def _show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)}"
    if isinstance(value, slice):
        parts = ["" if p is None else str(p) for p in (value.start, value.stop, value.step)]
        return ":".join(parts if value.step is not None else parts[:2])
    if isinstance(value, tuple):
        return f"({', '.join(_show(v) for v in value)})"
    if isinstance(value, (list, dict, set)) and len(repr(value)) > 24:
        return f"{type(value).__name__}[{len(value)}]"
    if callable(value):
        return _name(value)
    return _NO_ADDRESS.sub("", repr(value))


# Note: test ids must be the same in every process (pytest-xdist compares them), so an
# object's address (`<list_iterator object at 0x7f...>`) is left out.
_NO_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def xfail(case: Case, reason: str, run: bool = True):
    """A row for a known gap: it runs (unless `run` is False), and is expected to fail
    for `reason`."""
    return pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True, run=run))


# Reasons for the known gaps.
UNCOMPARABLE = "{} objects compare by identity: test_rule cannot compare the primal output"


def unwrap(row) -> Case:
    """The Case of a row (rows marked xfail are pytest params)."""
    return row.values[0] if hasattr(row, "values") else row


# ---- points ------------------------------------------------------------------------
V3 = np.array([0.3, -1.2, 0.5])
W3 = np.array([1.1, 0.7, -0.4])
POS3 = np.array([0.5, 1.3, 2.1])
M23 = np.array([[0.3, -1.2, 0.5], [1.1, 0.7, -0.4]])
M34 = np.array([[0.2, 1.0, -0.3, 0.8], [-1.1, 0.4, 0.9, 0.1], [0.6, -0.7, 1.3, -0.2]])
M32 = M34[:, :2].copy()
S22 = np.array([[1.2, -0.3], [0.4, 0.9]])
T223 = np.arange(12.0).reshape(2, 2, 3) / 7.0 - 0.6
T232 = np.arange(12.0).reshape(2, 3, 2) / 5.0 - 1.1
MASK3 = np.array([True, False, True])
MASK23 = M23 > 0


# ---- NumPy points ----------------------------------------------------------------------
Z3 = np.zeros(3)
Z23 = np.zeros((2, 3))
I3 = np.array([2, 0, 5])
U3 = np.array([0.2, -0.5, 0.9])     # never equal to an entry of M23 (no ties)
P23 = M23 + 0.03                    # away from the jumps of round, rint, frexp
ZEROS_IN = np.array([[0.3, 0.0, 0.5], [1.1, 0.0, 0.0]])   # prod and cumprod with zeros
SQ = np.array([[2.0, -0.3, 0.4], [0.1, 1.5, -0.2], [0.3, 0.2, 1.1]])

# ---- complex points: real results (norms, variances, singular values) of complex input --
C3 = V3 + 1j * W3
C23 = M23 + 0.7j * M23[::-1]  # (no ties among row or column sums of |C23|)
C33 = SQ + 1j * SQ.T[::-1]
# complex points off the branch cuts, in every quadrant, inside and outside the unit circle
CQ = np.array([0.3 + 1.1j, -1.2 + 0.7j, -0.5 - 0.4j, 2.1 - 1.6j, 0.8 + 0.05j, -1.7 - 2.2j])
