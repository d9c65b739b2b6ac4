"""Rules for creating arrays: array/asarray of (nested lists of) Duals, zeros, ones,
and their *_like versions.

A new array's zero tangent comes from `created_tangent`, so that inside a batched call
it already has the batch axis (see the Note in rules/batching.py).
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import batch_size, created_tangent
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


@frule(np.array, np.asarray)
def _array(x: Dual, dtype=None, **kwargs) -> Dual:
    out = np.array(x.primal, dtype=dtype, **kwargs)
    if out.dtype.kind not in "fc":
        return Dual(out, NoTangent)
    if isinstance(x.primal, np.ndarray):
        if x.tangent is NoTangent:
            return Dual(out, created_tangent(out))
        return Dual(out, np.array(x.tangent, dtype=out.dtype))
    dense = _stack(x.tangent, x.primal)
    return Dual(out, dense if dense.dtype == out.dtype else dense.astype(out.dtype))


def _stack(tangent, primal) -> np.ndarray:
    """The tangent of np.array(primal) for nested lists of values. NoTangent leaves are
    zeros; with batched leaves, the batch axis becomes the leading axis."""
    size = _batch_size(tangent, primal) or batch_size()

    def leaf(t, p):
        if t is NoTangent:
            t = 0.0
        if size is None or np.ndim(t) == np.ndim(p) + 1:  # (adding zeros broadcasts)
            return np.zeros(np.shape(t) if size else np.shape(p)) + t
        return np.zeros((size,) + np.shape(p)) + t
    return _nest(_map_leaves(leaf, tangent, primal), 0 if size is None else 1)


def _nest(items, axis: int):
    """np.array of nested lists of equal-shaped arrays, built with np.stack so that
    tangents recorded by linearize (which np.array cannot see into) stack too; with a
    batch, each level stacks after the leading batch axis."""
    if not isinstance(items, list):
        return items
    if not items:
        return np.zeros((0,))
    return np.stack([_nest(item, axis) for item in items], axis)


def _map_leaves(fn, tangent, primal):
    if isinstance(primal, (list, tuple)):
        return [_map_leaves(fn, t, p) for t, p in zip(tangent, primal)]
    return fn(tangent, primal)


def _batch_size(tangent, primal):
    """The batch size if any leaf's tangent is batched, else None."""
    if isinstance(primal, (list, tuple)):
        for t, p in zip(tangent, primal):
            size = _batch_size(t, p)
            if size is not None:
                return size
        return None
    if tangent is not NoTangent and np.ndim(tangent) == np.ndim(primal) + 1:
        return np.shape(tangent)[0]
    return None


def _created(fn):
    """A function that makes a new array from shapes and constants: no derivative, and
    a zero tangent (batched in a batched call)."""
    def rule(*args, **kwargs) -> Dual:
        out = fn(*args, **kwargs)
        return Dual(out, created_tangent(out))
    rule.__name__ = f"new_{fn.__name__}"
    return rule


for _fn in (np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.zeros, np.ones,
            np.empty, np.full, np.arange, np.linspace, np.eye, np.identity):
    frule(_fn)(_created(_fn))

def_nondiff(np.shape, np.ndim, np.size)
