"""`out=` for the NumPy functions that take it beyond the ufuncs: the rule computes the
result as usual, then it is copied into `out` (primal and tangent, in place), and `out`
is returned, as NumPy returns it.

Imported after the other rule modules: it wraps the rules they registered.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.registry import frule, get_frule
from fwdad.rules.ufuncs import write_outputs

WITH_OUT = [
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.nansum, np.nanmean,
    np.var, np.std, np.cumsum, np.cumprod, np.ptp, np.median, np.quantile, np.percentile,
    np.argmax, np.argmin, np.any, np.all, np.round, np.around, np.dot, np.matmul,
    np.concatenate, np.take, np.trace,
    np.ndarray.sum, np.ndarray.mean, np.ndarray.prod, np.ndarray.max, np.ndarray.min,
    np.ndarray.var, np.ndarray.std, np.ndarray.cumsum, np.ndarray.cumprod,
    np.ndarray.argmax, np.ndarray.argmin, np.ndarray.round, np.ndarray.dot,
    np.ndarray.take, np.ndarray.trace, np.ndarray.any, np.ndarray.all, np.einsum,
    np.vecdot, np.nanprod, np.nancumsum, np.nancumprod,
    np.nanvar, np.nanstd, np.nanmax, np.nanmin, np.nanargmax, np.nanargmin,
]


def supports_out(rule: Callable) -> Callable:
    """The rule, plus `out=`: the result is written into out, which is returned."""
    def with_out(*args: Dual, out: Dual = None, **kwargs: Dual) -> Dual:
        result = rule(*args, **kwargs)
        if out is None or out.primal is None:
            return result
        return write_outputs((out,), result.primal, result.tangent, {})
    with_out.__name__ = getattr(rule, "__name__", "rule")
    with_out.__doc__ = getattr(rule, "__doc__", None)
    return with_out


for _fn in WITH_OUT:
    frule(_fn)(supports_out(get_frule(_fn)))
