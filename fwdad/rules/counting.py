"""Rules for counting functions whose outputs carry a derivative after all: np.bincount
is linear in its weights; np.unique of a differentiated float array is refused (its
values would need a derivative, and a perturbation can split a repeated value)."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError
from fwdad.rules.batching import is_batched
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


@frule(np.bincount)
def _bincount(x, weights: Dual = None, minlength=0) -> Dual:
    """Counts have no derivative; sums of weights are linear in the weights."""
    if weights is None:
        return Dual(np.bincount(x, minlength=minlength), NoTangent)
    out = np.bincount(x, np.asarray(weights.primal), minlength)
    dw = weights.tangent
    if dw is NoTangent or np.asarray(dw).dtype.kind != "f":  # int weights
        return Dual(out, NoTangent)
    dw = np.asarray(dw)
    if is_batched(np.asarray(weights.primal), dw):
        return Dual(out, np.stack([np.bincount(x, t, minlength) for t in dw]))
    return Dual(out, np.bincount(x, dw, minlength))


@frule(np.unique)
def _unique(ar: Dual, *args, **kwargs) -> Dual:
    """The unique values of a float array are its elements, and a tie that a
    perturbation breaks changes the output's length: no derivative to give."""
    dx = ar.tangent
    if dx is not NoTangent and np.asarray(dx).dtype.kind == "f" and np.any(dx != 0):
        raise NonDifferentiableError(
            "np.unique of a float array that depends on the differentiated inputs: its "
            "values would need a derivative, and one perturbation can split a repeated "
            "value. Sort instead (np.sort is differentiable), or call np.unique on "
            "values that do not depend on the inputs.")
    return Dual(np.unique(ar.primal, *args, **kwargs), NoTangent)
