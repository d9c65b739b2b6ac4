"""Rules for indexing: getitem, setitem, delitem on arrays, lists, tuples and dicts.

The tangent of `x[i]` is the same part of the tangent of x: a view when the primal is a
view, so that writing through it updates both. Writes follow NumPy: repeated integer
indices keep the last write.
"""
from __future__ import annotations

import operator

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import is_batched, lift, tangent_index, widen_for
from fwdad.rules.classes import overloadable
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, zero_tangent


@frule(operator.getitem)
@overloadable("__getitem__")
def _getitem(x: Dual, index) -> Dual:
    primal, tangent = x.primal, x.tangent
    out = primal[index]
    if tangent is NoTangent or isinstance(primal, (str, bytes, range)):
        return Dual(out, zero_tangent(out))
    if isinstance(primal, np.ndarray):
        return Dual(out, tangent[tangent_index(primal, tangent, index)])
    return Dual(out, tangent[index])


@frule(operator.setitem)
@overloadable("__setitem__")
def _setitem(x: Dual, index, value: Dual) -> Dual:
    primal = x.primal
    primal[index] = value.primal
    if isinstance(primal, np.ndarray):
        if x.tangent is not NoTangent:
            widen_for(x, value, "x[i] = v")  # (holds no reference to x.tangent first)
            _write_array_tangent(primal, x.tangent, index, value)
    elif x.tangent is not NoTangent:
        x.tangent[index] = value.tangent
    return Dual(None, NoTangent)


def _write_array_tangent(primal, tangent, index, value: Dual) -> None:
    """tangent[index] = dv, where dv broadcasts into the target as the value did (an
    unbatched dv broadcasts across the batch axis, too)."""
    dv = 0.0 if value.tangent is NoTangent else \
        lift(value.primal, value.tangent, np.ndim(primal[index]))
    tangent[tangent_index(primal, tangent, index)] = dv


@frule(operator.delitem)
@overloadable("__delitem__")
def _delitem(x: Dual, index) -> Dual:
    del x.primal[index]
    if x.tangent is not NoTangent:
        del x.tangent[index]
    return Dual(None, NoTangent)


def array_view_tangent(x: Dual, name: str):
    """The tangent of `x.T`, `x.real`, ... (each linear, and a view like its primal)."""
    tangent = x.tangent
    if tangent is NoTangent:
        return NoTangent
    if name in ("T", "mT") and is_batched(x.primal, tangent):
        axes = (0,) + tuple(range(tangent.ndim - 1, 0, -1)) if name == "T" else \
            tuple(range(tangent.ndim - 2)) + (tangent.ndim - 1, tangent.ndim - 2)
        return tangent.transpose(axes)
    return getattr(tangent, name)
