"""Rules for functions that only reorder entries, under names the shape rules do not
cover: np.rollaxis (an older np.moveaxis), np.row_stack (an older np.vstack, deprecated
since NumPy 2.0), np.partition (the values where argpartition puts them).

    y = np.partition(x, k)   ->   dy = dx at the positions the values of y came from
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from fwdad.dual import Dual
from fwdad.rules.batching import dense, fit, is_batched, tangent_axis
from fwdad.rules.reductions import as_array, flattened
from fwdad.rules.registry import frule
from fwdad.rules.shapes import joining, linear


# ---- older names of shape functions -------------------------------------------------------
def _rollaxis(out, x, dx, axis, start=0):
    """np.rollaxis of a batch: both axes counted past the batch axis (`start` may be
    ndim, one past the last axis)."""
    count = np.ndim(x)
    return np.rollaxis(dx, normalize_axis_index(axis, count) + 1,
                       (start + count if start < 0 else start) + 1)


linear(np.rollaxis, batched=_rollaxis)
if hasattr(np, "row_stack"):  # (removed from NumPy's namespace in a later version)
    joining(np.row_stack)


# ---- partition: the values move ----------------------------------------------------------
def sources(x: np.ndarray, out: np.ndarray, axis: int) -> np.ndarray:
    """Where along `axis` each entry of `out`, a rearrangement of x along it, came from:
    out's i-th smallest is x's i-th smallest (equal values in their order, as np.sort's
    rule takes them). Exact whatever order NumPy leaves within the partitions."""
    ranked_x = np.argsort(x, axis=axis, kind="stable")
    rank_in_out = np.argsort(np.argsort(out, axis=axis, kind="stable"), axis=axis)
    return np.take_along_axis(ranked_x, rank_in_out, axis=axis)


@frule(np.partition)
def _partition(a: Dual, kth, axis=-1, kind="introselect", order=None) -> Dual:
    """The tangents go where their values go."""
    a = as_array(a)
    out = np.partition(a.primal, kth, axis, kind, order)
    if axis is None:  # (NumPy partitions the flattened array)
        a, axis = flattened(a), -1
    where = sources(a.primal, out, axis)
    da = dense(a.primal, a.tangent)
    if is_batched(a.primal, da):
        where, axis = where[None], tangent_axis(a.primal, da, axis)
    return Dual(out, fit(np.take_along_axis(da, where, axis=axis), out))
