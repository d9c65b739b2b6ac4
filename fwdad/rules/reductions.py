"""Rules for reductions: sum and mean (the rest of NumPy's reductions grow here)."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import tangent_axis
from fwdad.rules.creation import _array
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


def _reduce_linear(fn, x: Dual, axis, kwargs) -> Dual:
    """Linear reductions: the tangent is the same reduction of the tangent."""
    if isinstance(x.primal, (list, tuple)):
        x = _array(x)  # batched tangents of the items: the batch axis goes first
    out = fn(x.primal, axis=axis, **kwargs)
    if x.tangent is NoTangent:
        return Dual(out, NoTangent)
    return Dual(out, fn(x.tangent, axis=tangent_axis(x.primal, x.tangent, axis), **kwargs))


@frule(np.sum, np.ndarray.sum)
def _sum(x: Dual, axis=None, dtype=None, keepdims=False) -> Dual:
    return _reduce_linear(np.sum, x, axis, dict(dtype=dtype, keepdims=keepdims))


@frule(np.mean, np.ndarray.mean)
def _mean(x: Dual, axis=None, dtype=None, keepdims=False) -> Dual:
    return _reduce_linear(np.mean, x, axis, dict(dtype=dtype, keepdims=keepdims))
