"""Rules for differences along an axis: np.diff (linear).

The tangent is the same difference of the tangent, along the matching tangent axis.
(np.roll and np.stack, with the other shape functions, are in rules/shapes.py.)"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import tangent_axis
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


@frule(np.diff)
def _diff(x: Dual, n=1, axis=-1) -> Dual:
    tangent = x.tangent if x.tangent is NoTangent else \
        np.diff(x.tangent, n, axis=tangent_axis(x.primal, x.tangent, axis))
    return Dual(np.diff(x.primal, n, axis=axis), tangent)
