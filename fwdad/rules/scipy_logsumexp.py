"""Rules for SciPy's log-sum-exp family: `scipy.special.logsumexp` (with `b=`, `axis=`,
`keepdims=` and `return_sign=`), `softmax` and `log_softmax` (with `axis=`).

    y = log |sum(b exp(a))|   ->   dy = sum(sign * exp(a - y) * (b da + db))
    y = softmax(x)            ->   dy = y * (dx - sum(y dx))
    y = log_softmax(x)        ->   dy = dx - sum(exp(y) dx)

The sums run over `axis` (of the tangent: after its batch axis, `tangent_axis`). Each
tangent is written with functions that have rules, so it can be differentiated again.
This module imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

from fwdad.dual import Dual
from fwdad.rules.batching import fit, lift, ndim, tangent_axis
from fwdad.rules.reductions import as_array
from fwdad.rules.registry import frule
from fwdad.rules.scipy_special import refuse_complex
from fwdad.tangents import NoTangent


@frule(sc.logsumexp)
def _logsumexp(a: Dual, axis=None, b: Dual = None, keepdims=False,
               return_sign=False) -> Dual:
    a = as_array(a)
    bp = None if b is None else b.primal
    refuse_complex("logsumexp(a, b=b)", a.primal, bp)
    out = sc.logsumexp(a.primal, axis, bp, keepdims, return_sign)
    kept, sign = sc.logsumexp(a.primal, axis, bp, keepdims=True, return_sign=True)
    weight = sign * np.exp(a.primal - kept)  # d log|s| = ds / s, s = sum(b exp(a))
    term = _weighted(weight, a, b)
    # Note: no fit(dy, y): np.sum gives y's shape and dtype already, and fit would turn
    # a scalar's recorded tangent into a plain number (linearize could not record it).
    dy = NoTangent if term is NoTangent else np.sum(
        term, axis=tangent_axis(weight * (1.0 if b is None else bp), term, axis),
        keepdims=keepdims)
    return Dual(out, (dy, NoTangent)) if return_sign else Dual(out, dy)


def _weighted(weight, a: Dual, b: Dual):
    """weight * (b da + db), with da and db lifted to the broadcast shape of a and b."""
    if b is None:
        return weight * a.tangent
    size = max(ndim(a.primal), ndim(b.primal))
    da, db = lift(a.primal, a.tangent, size), lift(b.primal, b.tangent, size)
    return weight * (b.primal * da) + weight * db


@frule(sc.softmax)
def _softmax(x: Dual, axis=None) -> Dual:
    x = as_array(x)
    refuse_complex("softmax(x)", x.primal)
    y = sc.softmax(x.primal, axis=axis)
    if x.tangent is NoTangent:
        return Dual(y, NoTangent)
    mean = np.sum(y * x.tangent, axis=tangent_axis(x.primal, x.tangent, axis), keepdims=True)
    return Dual(y, fit(y * (x.tangent - mean), y))


@frule(sc.log_softmax)
def _log_softmax(x: Dual, axis=None) -> Dual:
    x = as_array(x)
    refuse_complex("log_softmax(x)", x.primal)
    y = sc.log_softmax(x.primal, axis=axis)
    if x.tangent is NoTangent:
        return Dual(y, NoTangent)
    mean = np.sum(np.exp(y) * x.tangent, axis=tangent_axis(x.primal, x.tangent, axis),
                  keepdims=True)
    return Dual(y, fit(x.tangent - mean, y))
