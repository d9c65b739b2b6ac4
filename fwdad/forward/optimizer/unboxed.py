"""Helpers that optimized rules call at run time: the guard against batched tangents.

Templates are exact for unbatched tangents of every type; only rules align batch axes.
An optimized rule asks `batched(...)` of its arguments first and, if so, runs the plain
rule instead. An unknown structure counts as batched: the plain rule is always right.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fwdad.dual import Dual
from fwdad.tangents import NoTangent

_SCALARS = (float, complex, np.number)
_SCALAR_TYPES = frozenset((float, complex, np.float64, np.float32))  # (never batched)
_MAX_DEPTH = 8


def batched(*args: Dual, **kwargs: Dual) -> bool:
    """True when the plain rule must run: some argument's tangent has (or may have) a
    leading batch axis, or holds an instance of a user class, or an array with no
    tangent (`x + k` for an int array k: templates leave out the term of k, whose
    shape the plain rule gives the tangent)."""
    for d in args:
        if type(d.tangent) not in _SCALAR_TYPES and \
                not every_leaf(d.primal, d.tangent, _same_axes):
            return True  # (a scalar tangent, the common case, asked without a call)
    return bool(kwargs) and any(not every_leaf(d.primal, d.tangent, _same_axes)
                                for d in kwargs.values())


def _same_axes(primal: Any, tangent: np.ndarray) -> bool:
    return isinstance(primal, np.ndarray) and tangent.ndim == primal.ndim


def every_leaf(primal: Any, tangent: Any, array_leaf: Callable[[Any, np.ndarray], bool],
               depth: int = 0) -> bool:
    """Whether every leaf of a Dual's value fits: an array tangent as `array_leaf` says,
    a number's tangent always (a batch axis makes an array), NoTangent for a value that
    is not an array (an int array may give a result its shape, which the rule keeps),
    through lists, tuples and dicts; never an instance of a user class (its operators
    are its own methods, which templates do not know)."""
    if tangent is NoTangent:
        return not isinstance(primal, np.ndarray) or primal.ndim == 0
    if isinstance(tangent, _SCALARS):
        return True
    if isinstance(tangent, np.ndarray):
        return array_leaf(primal, tangent)
    if depth >= _MAX_DEPTH:
        return False
    if isinstance(tangent, (list, tuple)) and isinstance(primal, (list, tuple)):
        return len(primal) == len(tangent) and all(
            every_leaf(p, t, array_leaf, depth + 1) for p, t in zip(primal, tangent))
    if isinstance(tangent, dict) and isinstance(primal, dict):
        return all(k in primal and every_leaf(primal[k], t, array_leaf, depth + 1)
                   for k, t in tangent.items())
    return False
