"""Rules for shape functions: reshape, transpose, stacking, splitting, flips, rolls
(pad, append and insert: padding.py).

Each is linear in its arrays, so its tangent is the same function of the tangents, and a
view when the primal is a view (writing through it updates both). A batch of tangents
goes through `batched(out, x, dx, *args, **kwargs)` where that is one call (keeping
views), else item by item.
"""
from __future__ import annotations

import types
from typing import Callable, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from fwdad.core.duals import iterate
from fwdad.dual import Dual
from fwdad.rules.array_protocol import implicit_array
from fwdad.rules.batching import (
    cast,
    common_batch,
    dense,
    is_batched,
    lift,
    map_batch,
    map_batch_many,
)
from fwdad.rules.layout import stride_order
from fwdad.rules.reductions import as_array
from fwdad.rules.registry import frule, takes_out
from fwdad.rules.unshared import own_unless_view, view_followed
from fwdad.rules.widening import widen_before_view_of
from fwdad.tangents import NoTangent


def linear(*fns: Callable, batched: Optional[Callable] = None, pure: bool = False) -> None:
    """Register functions linear in their first argument (an array); `pure` when they
    mutate none of their arguments (rules/purity.py)."""
    for fn in fns:
        frule(fn, pure=pure or None)(_linear_rule(fn, batched))


def _linear_rule(fn: Callable, batched: Optional[Callable]) -> Callable:
    on_tangent = _on_tangent(fn)

    def rule(x: Dual, *args, **kwargs) -> Dual:
        if isinstance(x.primal, (list, tuple)):
            x = as_array(x)
        out = fn(x.primal, *args, **kwargs)
        widen_before_view_of(x, out)  # (a batched write through out must reach x)
        dx = x.tangent
        if batched is None or dx is NoTangent or not is_batched(x.primal, dx):
            tangent = map_batch(lambda t: on_tangent(t, *args, **kwargs), x.primal, dx)
        else:
            tangent = batched(out, x.primal, dx, *args, **kwargs)
        view_followed(fn, out, x.primal, tangent, dx)
        return Dual(out, own_unless_view(out, x.primal, tangent, dx))
    rule.__name__ = f"_{fn.__name__}"
    return rule


def _on_tangent(fn: Callable) -> Callable:
    """`fn` as applied to a tangent: an ndarray method (np.ndarray.reshape) by its name,
    so that a tangent that only acts like an array (linearize's recorded tangents, see
    fwdad/recording.py) runs its own."""
    if not (isinstance(fn, types.MethodDescriptorType) and fn.__objclass__ is np.ndarray):
        return fn
    name = fn.__name__

    def method(t, *args, **kwargs):
        return getattr(t, name)(*args, **kwargs)
    return method


def _shift(axis, ndim: int):
    """Axes of a primal of `ndim` axes, as axes of its batched tangent."""
    if isinstance(axis, (tuple, list)):
        return tuple(a + 1 for a in normalize_axis_tuple(axis, ndim))
    return normalize_axis_index(axis, ndim) + 1


# ---- views: one call for a whole batch ---------------------------------------------------
def _reshape(out, x, dx, *args, order="C", **kwargs):
    if _reads_in_f_order(x, order):  # (a view where the value's reshape is one)
        return _reversed_items(_reversed_items(dx).reshape(dx.shape[:1] + out.shape[::-1]))
    return dx.reshape(dx.shape[:1] + out.shape)


def _reads_in_f_order(x, order: str) -> bool:
    """Whether reshape or ravel with `order` reads x's items in F order ("A": when x
    is F-contiguous and not C-contiguous)."""
    if order == "A":
        return isinstance(x, np.ndarray) and x.flags.f_contiguous and not x.flags.c_contiguous
    return order == "F"


def _reversed_items(dx):
    """Each item of the batch with its axes reversed (the batch axis stays in front):
    an F-order reshape of the items is a C-order one of these, as in NumPy."""
    return dx.transpose((0,) + tuple(range(dx.ndim - 1, 0, -1)))


def _transpose(out, x, dx, *axes, **kwargs):
    axes = kwargs.get("axes", axes[0] if len(axes) == 1 else axes)
    axes = () if axes is None else tuple(np.ravel(axes))  # (an array of axes too)
    axes = axes or tuple(range(np.ndim(x) - 1, -1, -1))
    return dx.transpose((0,) + _shift(axes, np.ndim(x)))


def _swapaxes(out, x, dx, axis1, axis2):
    return np.swapaxes(dx, _shift(axis1, np.ndim(x)), _shift(axis2, np.ndim(x)))


def _moveaxis(out, x, dx, source, destination):
    return np.moveaxis(dx, _shift(source, np.ndim(x)), _shift(destination, np.ndim(out)))


def _squeeze(out, x, dx, axis=None):
    if axis is None:
        axis = tuple(k for k, n in enumerate(np.shape(x)) if n == 1)
    return np.squeeze(dx, _shift(axis, np.ndim(x)))


def _expand_dims(out, x, dx, axis):
    return np.expand_dims(dx, _shift(axis, np.ndim(out)))


def _ravel(out, x, dx, order="C"):
    if _reads_in_f_order(x, order):  # each item's axes reversed, then read in C order
        dx = _reversed_items(dx)
    elif order == "K" and min(x.strides, default=0) >= 0:  # x's memory order
        dx = dx.transpose((0,) + tuple(1 + k for k in stride_order(x)))
    elif order == "K":  # (flipped axes: each item in its own memory order, as laid out
        return np.stack([np.ravel(t, order) for t in dx])  # like x: rules/layout.py)
    return dx.reshape(len(dx), -1)


def _broadcast_to(out, x, dx, shape, **kwargs):
    return np.broadcast_to(lift(x, dx, np.ndim(out)), dx.shape[:1] + out.shape)


def _diagonal(out, x, dx, offset=0, axis1=0, axis2=1):
    return np.diagonal(dx, offset, _shift(axis1, np.ndim(x)), _shift(axis2, np.ndim(x)))


def _flip(out, x, dx, axis=None):
    return np.flip(dx, tuple(range(1, dx.ndim)) if axis is None else _shift(axis, np.ndim(x)))


def _along_axis(fn):
    """take, repeat, roll, ...: `axis` shifts past the batch axis; None flattens first."""
    def batched(out, x, dx, first, axis=None, *rest, **kwargs):  # (axis: 2nd argument)
        if axis is None:
            return fn(dx.reshape(len(dx), -1), first, 1, *rest, **kwargs)
        return fn(dx, first, _shift(axis, np.ndim(x)), *rest, **kwargs)
    return batched


def rolled(a, shift, axis=None):
    """np.roll(a, shift, axis). An int shift of a C-ordered array along one axis, or of
    the flattened array, is two slices put back together: np.roll's own work without
    its general setup (some 4x quicker on 200 numbers), giving the same array."""
    if type(a) is not np.ndarray or type(shift) is not int or a.ndim == 0 or \
            not (axis is None or type(axis) is int) or not a.flags.c_contiguous:
        return np.roll(a, shift, axis)
    if axis is None:  # (the common case: a 1-d array)
        flat = a.reshape(-1)
        cut = _cut(len(flat), shift)
        return np.concatenate((flat[cut:], flat[:cut])).reshape(a.shape)
    axis = normalize_axis_index(axis, a.ndim)
    cut = _cut(a.shape[axis], shift)
    before = (slice(None),) * axis
    return np.concatenate((a[before + (slice(cut, None),)], a[before + (slice(cut),)]),
                          axis=axis)


def _cut(length: int, shift: int) -> int:
    """Where a roll by `shift` cuts an axis of `length`: the items from there come first."""
    return length - shift % length if length else 0


def batched_roll(out, x, dx, shift, axis=None):
    """Each tangent of the batch rolled, along the axis past the batch axis, or flattened
    on its own (axis=None)."""
    if type(shift) is not int or not (axis is None or type(axis) is int):
        return _along_axis(np.roll)(out, x, dx, shift, axis).reshape(dx.shape)
    if axis is None:
        return rolled(dx.reshape(len(dx), -1), shift, 1).reshape(dx.shape)
    return rolled(dx, shift, _shift(axis, np.ndim(x)))


linear(np.reshape, np.ndarray.reshape, batched=_reshape)
linear(np.transpose, np.ndarray.transpose, batched=_transpose)
linear(np.swapaxes, np.ndarray.swapaxes, batched=_swapaxes)
linear(np.moveaxis, batched=_moveaxis)
linear(np.squeeze, np.ndarray.squeeze, batched=_squeeze)
linear(np.expand_dims, batched=_expand_dims)
linear(np.ravel, np.ndarray.ravel, np.ndarray.flatten, batched=_ravel)
linear(np.broadcast_to, batched=_broadcast_to)
linear(np.diagonal, np.ndarray.diagonal, batched=_diagonal)
linear(np.flip, batched=_flip)
linear(np.take, np.ndarray.take, batched=_along_axis(np.take))
linear(np.repeat, np.ndarray.repeat, batched=_along_axis(np.repeat))
linear(np.flipud, batched=lambda out, x, dx: np.flip(dx, 1))
linear(np.fliplr, batched=lambda out, x, dx: np.flip(dx, 2))
linear(np.rot90, batched=lambda out, x, dx, k=1, axes=(0, 1): np.rot90(
    dx, k, _shift(axes, np.ndim(x))))
frule(np.roll, pure=True)(_linear_rule(rolled, batched_roll))  # (a new array; no `out`)
# item by item for a batch:
linear(np.tile, np.triu, np.tril, np.delete, np.resize, np.diagflat)


def _atleast_rule(fn: Callable) -> Callable:
    """atleast_1d/2d/3d: each array is reshaped on its own; several in, a tuple out.
    A batch of tangents gets the new unit axes after its batch axis (a view)."""
    one = _linear_rule(fn, lambda out, x, dx: dx.reshape(dx.shape[:1] + out.shape))

    def rule(*arrays: Dual) -> Dual:
        if len(arrays) == 1:
            return one(arrays[0])
        outs = [one(a) for a in arrays]
        return Dual(tuple(o.primal for o in outs), tuple(o.tangent for o in outs))
    rule.__name__ = f"_{fn.__name__}"
    return rule


for _fn in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
    frule(_fn)(_atleast_rule(_fn))


@frule(np.ix_)
def _ix(*seqs: Dual) -> Dual:
    """Each 1-d sequence reshaped to its own axis (float ones carry their tangents)."""
    seqs = [as_array(s) for s in seqs]
    out = np.ix_(*(s.primal for s in seqs))
    return Dual(out, tuple(NoTangent if s.tangent is NoTangent or o.dtype.kind not in "fc"
                           else s.tangent.reshape(s.tangent.shape[:s.tangent.ndim - 1]
                                                  + o.shape) for s, o in zip(seqs, out)))


@frule(np.take_along_axis)
def _take_along_axis(x: Dual, indices, axis) -> Dual:
    out = np.take_along_axis(x.primal, indices, axis)
    if axis is None or not is_batched(x.primal, x.tangent):
        return Dual(out, map_batch(lambda t: np.take_along_axis(t, indices, axis),
                                   x.primal, x.tangent))
    return Dual(out, np.take_along_axis(x.tangent, indices[None], _shift(axis, x.primal.ndim)))


# ---- several arrays in -------------------------------------------------------------------
def items(seq: Dual) -> list:
    """The Duals of a sequence argument (a list, a tuple or an array of arrays); an
    instance NumPy reads by its __array__ is that array (rules/array_protocol.py)."""
    if isinstance(seq.primal, (list, tuple)):
        tangents = seq.tangent if isinstance(seq.tangent, (list, tuple)) else \
            [NoTangent] * len(seq.primal)
        return [implicit_array(Dual(p, t), None) for p, t in zip(seq.primal, tangents)]
    return list(iterate(seq))


def joining(*fns: Callable) -> None:
    """Register functions linear in a sequence of arrays (concatenate, stack ...)."""
    for fn in fns:
        frule(fn)(_joining_rule(fn))


def _joining_rule(fn: Callable) -> Callable:
    def rule(seq: Dual, *args, **kwargs) -> Dual:
        parts = items(seq)
        primals, tangents = [d.primal for d in parts], [d.tangent for d in parts]
        out = fn(primals, *args, **kwargs)
        if all(t is NoTangent for t in tangents):
            return Dual(out, NoTangent)
        return Dual(out, cast(map_batch_many(lambda ts: fn(ts, *args, **kwargs), primals,
                                             tangents), out.dtype, copy=False))
    rule.__name__ = f"_{fn.__name__}"
    return rule


joining(np.concatenate, np.stack, np.hstack, np.vstack, np.dstack, np.column_stack)


# ---- several arrays out ------------------------------------------------------------------
def _per_item(outs: list, size: int) -> list:
    """[[a0, b0], [a1, b1], ...] (one list per batch item) -> [stack(a), stack(b)]."""
    return [np.stack([outs[b][k] for b in range(size)]) for k in range(len(outs[0]))]


def splitting(*fns: Callable) -> None:
    """Register functions of one array that return several (split ...): the tangents
    are the same pieces of the tangent, views when unbatched."""
    for fn in fns:
        frule(fn)(_splitting_rule(fn))


def _splitting_rule(fn: Callable) -> Callable:
    def rule(x: Dual, *args, **kwargs) -> Dual:
        x = as_array(x)
        out = fn(x.primal, *args, **kwargs)
        dx = x.tangent
        if dx is NoTangent:
            return Dual(out, NoTangent)
        if not is_batched(x.primal, dx):
            return Dual(out, type(out)(fn(dx, *args, **kwargs)))
        return Dual(out, type(out)(_split_batch(fn, x.primal, dx, *args, **kwargs)))
    rule.__name__ = f"_{fn.__name__}"
    return rule


_SPLIT_AXIS = {np.hsplit: lambda x: 1 if x.ndim > 1 else 0, np.vsplit: lambda x: 0,
               np.dsplit: lambda x: 2}


def _split_batch(fn, x, dx, *args, **kwargs):
    """A batch of tangents split where `fn` splits x, past the batch axis: views, as
    the pieces of x are."""
    if fn is np.unstack:
        return np.unstack(dx, axis=_shift(kwargs.get("axis", 0), x.ndim))
    sections = args[0] if args else kwargs["indices_or_sections"]
    axis = _SPLIT_AXIS[fn](x) if fn in _SPLIT_AXIS else \
        args[1] if len(args) > 1 else kwargs.get("axis", 0)
    return np.array_split(dx, sections, axis=_shift(axis, x.ndim))


splitting(np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.unstack)


def spreading(*fns: Callable) -> None:
    """Register functions of several arrays that return several, each output linear in
    the inputs (broadcast_arrays, meshgrid)."""
    for fn in fns:
        frule(fn)(_spreading_rule(fn))


def _spreading_rule(fn: Callable) -> Callable:
    def rule(*xs: Dual, **kwargs) -> Dual:
        primals, tangents = [d.primal for d in xs], [d.tangent for d in xs]
        out = fn(*primals, **kwargs)
        size = common_batch(primals, tangents)
        full = [dense(p, t, size) for p, t in zip(primals, tangents)]
        if size is None:
            return Dual(out, type(out)(np.copy(t) for t in fn(*full, **kwargs)))
        per = [fn(*[t[b] for t in full], **kwargs) for b in range(size)]
        return Dual(out, type(out)(_per_item(per, size)))
    rule.__name__ = f"_{fn.__name__}"
    return rule


spreading(np.broadcast_arrays, np.meshgrid)


takes_out(3, np.take, np.ndarray.take)  # (rules/outputs.py adds out= to their rules)
takes_out(2, np.concatenate, np.stack)
