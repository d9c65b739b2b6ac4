"""Rules for creating arrays: array/asarray of (nested lists of) Duals, zeros, ones,
and their *_like versions."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


def _dense(tangent, shape_of):
    """A tangent tree (lists of floats, arrays and NoTangent) as one float array;
    NoTangent stands for zeros of its primal's shape."""
    if tangent is NoTangent:
        return np.zeros(np.shape(shape_of))
    if isinstance(tangent, (list, tuple)):
        return np.array([_dense(t, p) for t, p in zip(tangent, shape_of)], dtype=float)
    return tangent


@frule(np.array, np.asarray)
def _array(x: Dual, dtype=None, **kwargs) -> Dual:
    out = np.array(x.primal, dtype=dtype, **kwargs)
    if out.dtype.kind not in "fc":
        return Dual(out, NoTangent)
    if isinstance(x.primal, np.ndarray):
        return Dual(out, np.array(x.tangent, dtype=out.dtype))
    return Dual(out, _stack(x.tangent, x.primal).astype(out.dtype, copy=False))


def _stack(tangent, primal) -> np.ndarray:
    """The tangent of np.array(primal), batched when the leaves are: the batch axis of
    each leaf becomes the leading axis of the result."""
    dense = _dense(tangent, primal)
    if dense.ndim == np.ndim(np.array(primal, dtype=float)) + 1 and \
            np.ndim(primal) >= 1 and _leaves_batched(tangent, primal):
        return np.moveaxis(dense, np.ndim(primal) - _leaf_ndim(primal), 0)
    return dense


def _leaves_batched(tangent, primal) -> bool:
    while isinstance(tangent, (list, tuple)) and tangent:
        tangent, primal = tangent[0], primal[0]
    return np.ndim(tangent) == np.ndim(primal) + 1


def _leaf_ndim(primal) -> int:
    while isinstance(primal, (list, tuple)) and primal:
        primal = primal[0]
    return np.ndim(primal)


def_nondiff(np.zeros_like, np.ones_like, np.empty_like, np.zeros, np.ones, np.empty, np.arange, np.linspace, np.eye, np.shape,
            np.ndim, np.size)
