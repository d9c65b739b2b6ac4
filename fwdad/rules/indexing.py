"""Rules for indexing: getitem, setitem, delitem on arrays, lists, tuples and dicts.

The tangent of `x[i]` is the same part of the tangent of x: a view when the primal is a
view, so that writing through it updates both, and a copy when it is not (an element,
or advanced indexing), which a batch of tangents (`dx[:, i]`) must copy. Writes follow
NumPy: repeated integer indices keep the last write.
"""
from __future__ import annotations

import operator

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError
from fwdad.rules.batching import batch_position, in_a_context, is_batched, tangent_index
from fwdad.rules.classes import overloadable
from fwdad.rules.creation import array_rule
from fwdad.rules.registry import frule
from fwdad.rules.unshared import own_unless_view
from fwdad.rules.widening import assign, refused_as_constant, widen_before_view
from fwdad.tangents import NoTangent, zero_tangent


@frule(operator.getitem, pure=True)
@overloadable("__getitem__")
def getitem_rule(x: Dual, index) -> Dual:
    primal, tangent = x.primal, x.tangent
    _no_flat(primal)
    out = primal[index]
    if tangent is NoTangent or isinstance(primal, (str, bytes, range)):
        return Dual(out, zero_tangent(out))
    if isinstance(primal, np.ndarray):
        if not is_batched(primal, tangent):
            if type(out) is not np.ndarray or out.base is None or not in_a_context():
                return Dual(out, tangent[index])
            del tangent  # (a view, which a batched write may go through)
            widen_before_view(x, out)
            tangent = x.tangent
            if not is_batched(primal, tangent):
                return Dual(out, tangent[index])
        return Dual(out, _batched_part(out, primal, tangent, index))
    if isinstance(primal, np.generic) and is_batched(primal, tangent):
        return Dual(out, _batched_part(out, primal, tangent, index))  # np.float64(1)[None]
    return Dual(out, tangent[index])


def _batched_part(out, primal, tangent, index):
    """The tangent of `primal[index]` from the batch of tangents `tangent`."""
    part = tangent[tangent_index(primal, tangent, index)]
    position = batch_position(index)  # the batch axis back in front:
    part = np.moveaxis(part, position, 0) if position else part
    return own_unless_view(out, primal, part, tangent)  # a[0]: a copy


@frule(operator.setitem)
@overloadable("__setitem__")
def setitem_rule(x: Dual, index, value: Dual) -> Dual:
    primal = x.primal  # (no local reference to x.tangent: assign may widen it)
    _no_flat(primal)
    if isinstance(primal, np.ndarray):
        refused_as_constant(x.tangent, value.tangent, "x[i] = v", primal)  # (before:
        primal[index] = value.primal                     # a refused global stays as it was)
        assign(x, index, value.primal, value.tangent)
        return Dual(None, NoTangent)
    if x.tangent is not NoTangent:  # (first: a global's tangent refuses a derivative)
        x.tangent[index] = value.tangent
    primal[index] = value.primal
    return Dual(None, NoTangent)


def _no_flat(primal) -> None:
    """x.flat carries no tangent: indexing it would drop derivatives without a word."""
    if isinstance(primal, np.flatiter):
        raise FwdadError("fwdad cannot differentiate indexing through `x.flat` (it carries "
                         "no tangent): index `x.reshape(-1)` (a view) or `x.ravel()` "
                         "instead.")


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


# ---- put_along_axis: a write at the index take_along_axis reads ----------------------------
def along_axis_index(arr: np.ndarray, indices, axis) -> tuple:
    """The index `arr[index] = values` writes through, for np.put_along_axis(arr, indices,
    values, axis) (axis None: into the flattened array). NumPy's own checks run first:
    np.take_along_axis reads the same places and raises what put_along_axis raises."""
    indices = np.asarray(indices)
    np.take_along_axis(arr, indices, axis)
    if axis is None:
        return np.unravel_index(np.where(indices < 0, indices + arr.size, indices), arr.shape)
    axis = axis + arr.ndim if axis < 0 else axis
    return tuple(indices if dim == axis else np.arange(n).reshape(
        [n if d == dim else 1 for d in range(arr.ndim)]) for dim, n in enumerate(arr.shape))


@frule(np.put_along_axis)
def _put_along_axis(arr: Dual, indices, values: Dual, axis) -> Dual:
    """In place: the tangent is written where the values are, as x[index] = v writes it
    (the last of repeated indices wins in both)."""
    if isinstance(values.primal, (list, tuple)):
        values = array_rule(values)  # (the items' batched tangents: the batch axis first)
    index = Dual(along_axis_index(arr.primal, indices, axis), NoTangent)
    return setitem_rule(arr, index, values)  # (its wrapper takes Duals)
