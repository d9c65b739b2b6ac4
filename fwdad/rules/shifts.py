"""Rules for shifting arrays along an axis: np.roll and np.diff (both linear).

Each tangent is the same shift of the tangent, along the matching tangent axis."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import is_batched, tangent_axis
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


def _roll_tangent(x: Dual, shift, axis):
    """np.roll of the tangent; with axis=None the flat array rolls, batch by batch."""
    tangent = x.tangent
    if axis is not None or not is_batched(x.primal, tangent):
        return np.roll(tangent, shift, tangent_axis(x.primal, tangent, axis))
    flat = np.roll(tangent.reshape(len(tangent), -1), shift, axis=1)
    return flat.reshape(tangent.shape)


@frule(np.roll)
def _roll(x: Dual, shift, axis=None) -> Dual:
    tangent = NoTangent if x.tangent is NoTangent else _roll_tangent(x, shift, axis)
    return Dual(np.roll(x.primal, shift, axis), tangent)


@frule(np.diff)
def _diff(x: Dual, n=1, axis=-1) -> Dual:
    tangent = x.tangent if x.tangent is NoTangent else \
        np.diff(x.tangent, n, axis=tangent_axis(x.primal, x.tangent, axis))
    return Dual(np.diff(x.primal, n, axis=axis), tangent)
