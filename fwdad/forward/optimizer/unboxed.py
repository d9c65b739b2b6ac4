"""Helpers that optimized rules call at run time: the guard against batched tangents.

Templates are exact for unbatched tangents of every type; only rules align batch axes.
An optimized rule asks `batched(...)` of its arguments first and, if so, runs the plain
rule instead. An unknown structure counts as batched: the plain rule is always right.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.dual import Dual
from fwdad.tangents import NoTangent, Tangent

_SCALARS = (float, complex, np.number)
_SCALAR_TYPES = frozenset((float, complex, np.float64, np.float32))  # (never batched)
_MAX_DEPTH = 8


def batched(*args: Dual, **kwargs: Dual) -> bool:
    """True when the plain rule must run: some argument's tangent has (or may have) a
    leading batch axis, or holds an instance of a user class, or an array with no
    tangent (`x + k` for an int array k: templates leave out the term of k, whose
    shape the plain rule gives the tangent)."""
    for d in args:
        if type(d.tangent) not in _SCALAR_TYPES and not _unbatched(d.primal, d.tangent, 0):
            return True  # (a scalar tangent, the common case, asked without a call)
    return bool(kwargs) and any(not _unbatched(d.primal, d.tangent, 0)
                                for d in kwargs.values())


def _unbatched(primal: Any, tangent: Any, depth: int) -> bool:
    if tangent is NoTangent:  # an int array may give a result its shape, which the
        return not isinstance(primal, np.ndarray) or primal.ndim == 0  # rule keeps
    if isinstance(tangent, _SCALARS):
        return True  # a batch axis makes an array
    if isinstance(tangent, np.ndarray):
        return isinstance(primal, np.ndarray) and tangent.ndim == primal.ndim
    if depth >= _MAX_DEPTH:
        return False
    if isinstance(tangent, (list, tuple)) and isinstance(primal, (list, tuple)):
        return len(primal) == len(tangent) and all(
            _unbatched(p, t, depth + 1) for p, t in zip(primal, tangent))
    if isinstance(tangent, dict) and isinstance(primal, dict):
        return all(k in primal and _unbatched(primal[k], t, depth + 1)
                   for k, t in tangent.items())
    if isinstance(tangent, Tangent):  # an instance of a user class: its operators are
        return False                  # its own methods, which templates do not know
    return False
