"""Reverse rules for np.partition, whose cotangents go back to where their values came
from, and np.real_if_close, the identity on the real values of reverse mode. (rollaxis
and row_stack are in rules_shapes.py's tables.)"""
from __future__ import annotations

import numpy as np

from fwdad.reverse.registry import rrule
from fwdad.rules.reordering import sources


@rrule(np.partition)
def _partition(a, kth, axis=-1, kind="introselect", order=None):
    """The cotangent of out's entry goes to the entry of `a` it holds the value of."""
    out = np.partition(a, kth, axis, kind, order)
    flat = np.ravel(a) if axis is None else np.asarray(a)
    along = -1 if axis is None else axis
    where = sources(flat, out, along)

    def pullback(ct):  # (entry p of out came from where[p]: the inverse permutation)
        ct = np.broadcast_to(ct, where.shape)
        back = np.take_along_axis(ct, np.argsort(where, axis=along), axis=along)
        return (back.reshape(np.shape(a)),)
    return out, pullback


@rrule(np.real_if_close)
def _real_if_close(a, tol=100):
    """Real values (reverse mode's) come back unchanged."""
    return np.real_if_close(a, tol), lambda ct: (ct,)
