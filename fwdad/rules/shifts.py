"""Rules for moving and joining array entries along an axis: np.roll, np.diff and
np.stack (all linear).

Each tangent is the same operation on the tangents, along the matching tangent axis."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.forward.runtime import iterate
from fwdad.rules.batching import is_batched, tangent_axis
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


def _roll_tangent(x: Dual, shift, axis):
    """np.roll of the tangent; with axis=None the flat array rolls, batch by batch."""
    tangent = x.tangent
    if axis is not None or not is_batched(x.primal, tangent):
        return roll(tangent, shift, tangent_axis(x.primal, tangent, axis))
    flat = np.roll(tangent.reshape(len(tangent), -1), shift, axis=1)
    return flat.reshape(tangent.shape)


def roll(a, shift, axis):
    """np.roll. One integer shift of an array along one axis is done with two slices:
    np.roll's general code costs more than the copy for a stencil's small arrays."""
    if type(a) is not np.ndarray or type(shift) is not int or type(axis) is not int \
            or a.shape[axis] == 0:
        return np.roll(a, shift, axis)
    split = a.shape[axis] - shift % a.shape[axis]
    index = (slice(None),) * (axis % a.ndim)
    return np.concatenate((a[index + (slice(split, None),)], a[index + (slice(split),)]),
                          axis=axis)


@frule(np.roll)
def _roll(x: Dual, shift, axis=None) -> Dual:
    if axis is None and np.ndim(x.primal) == 1:
        axis = 0  # the same roll, along the one axis
    tangent = NoTangent if x.tangent is NoTangent else _roll_tangent(x, shift, axis)
    return Dual(roll(x.primal, shift, axis), tangent)


@frule(np.diff)
def _diff(x: Dual, n=1, axis=-1) -> Dual:
    tangent = x.tangent if x.tangent is NoTangent else \
        np.diff(x.tangent, n, axis=tangent_axis(x.primal, x.tangent, axis))
    return Dual(np.diff(x.primal, n, axis=axis), tangent)


@frule(np.stack)
def _stack(arrays: Dual, axis=0) -> Dual:
    items = list(iterate(arrays))
    out = np.stack([item.primal for item in items], axis)
    return Dual(out, _stack_tangents(items, axis % out.ndim))


def _stack_tangents(items: list, axis: int):
    """np.stack of the tangents; with a batch, unbatched ones are broadcast to it."""
    sizes = [len(i.tangent) for i in items if is_batched(i.primal, i.tangent)]
    if not sizes:
        return np.stack([i.tangent for i in items], axis)
    shape = (sizes[0],) + np.shape(items[0].primal)
    return np.stack([i.tangent if is_batched(i.primal, i.tangent) else
                     np.zeros(shape) + i.tangent for i in items], axis + 1)
