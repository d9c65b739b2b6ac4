"""`out=` for the NumPy functions that take it beyond the ufuncs: the rule computes the
result as usual, then it is copied into `out` (primal and tangent, in place), and `out`
is returned, as NumPy returns it.

Imported after the other rule modules: it wraps the rules they registered.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.rules import fft
from fwdad.rules.registry import frule, get_frule, kind_of
from fwdad.rules.ufuncs import write_outputs

# Each function, and the position of `out` among its positional parameters (None:
# keyword only). Methods count `self` as position 0.
WITH_OUT = {
    **dict.fromkeys([np.sum, np.mean, np.prod, np.var, np.std, np.cumsum, np.cumprod,
                     np.nansum, np.nanmean, np.nanprod, np.nancumsum, np.nancumprod,
                     np.nanvar, np.nanstd, np.quantile, np.percentile, np.take,
                     np.ndarray.sum, np.ndarray.mean, np.ndarray.prod, np.ndarray.var,
                     np.ndarray.std, np.ndarray.cumsum, np.ndarray.cumprod,
                     np.ndarray.take], 3),
    **dict.fromkeys([np.max, np.min, np.amax, np.amin, np.ptp, np.median, np.argmax,
                     np.argmin, np.any, np.all, np.round, np.around, np.dot, np.matmul,
                     np.concatenate, np.nanmax, np.nanmin, np.nanargmax, np.nanargmin,
                     np.ndarray.max, np.ndarray.min, np.ndarray.argmax, np.ndarray.argmin,
                     np.ndarray.round, np.ndarray.dot, np.ndarray.any, np.ndarray.all], 2),
    **dict.fromkeys([np.trace, np.ndarray.trace], 5),
    **dict.fromkeys([np.einsum, np.vecdot], None),
    **dict.fromkeys(fft.ONE_DIMENSIONAL + fft.TWO_DIMENSIONAL + fft.N_DIMENSIONAL, 4),
}


def supports_out(rule: Callable, position: Optional[int]) -> Callable:
    """The rule, plus `out` (a keyword, or positional at `position`): the result is
    written into out, which is returned."""
    def with_out(*args: Dual, out: Dual = None, **kwargs: Dual) -> Dual:
        if position is not None and len(args) > position:
            out, args = args[position], args[:position] + args[position + 1:]
        result = rule(*args, **kwargs)
        if out is None or out.primal is None:
            return result
        return write_outputs((out,), result.primal, result.tangent, {})
    with_out.__name__ = getattr(rule, "__name__", "rule")
    with_out.__doc__ = getattr(rule, "__doc__", None)
    return with_out


for _fn, _position in WITH_OUT.items():  # (a nondiff rule stays declared nondiff)
    frule(_fn, nondiff=kind_of(_fn) == "nondiff")(supports_out(get_frule(_fn), _position))
