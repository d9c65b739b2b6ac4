"""Methods of NumPy scalars (`np.sum(x).round(2)`, `total.clip(0.0, 1.0)`): a NumPy
scalar's method means what the ndarray method of the same name means on a 0-d array,
so each runs that method's rule on the scalar as a 0-d array.

Imported after outputs.py, so the scalar methods take `out=` as the array ones do.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import is_batched
from fwdad.rules.registry import def_nondiff, frule, get_frule, kind_of
from fwdad.tangents import NoTangent

# The methods that read a value (the mutating ones, fill, put and sort, raise on
# scalars; var and std of one value are the constant 0). item and tolist have rules
# of their own (ndarray_methods.py).
METHODS = ("sum", "mean", "prod", "max", "min", "clip", "copy", "astype",
           "round", "conj", "conjugate", "reshape", "transpose",
           "squeeze", "ravel", "flatten", "cumsum", "cumprod", "argmax", "argmin",
           "argsort", "any", "all", "repeat", "take")


def _as_0d(x: Dual) -> Dual:
    # a new 0-d array: a copy of the tangent, too (a batch of tangents is an array)
    tangent = x.tangent if x.tangent is NoTangent else np.copy(x.tangent)  # (recorded too)
    return Dual(np.asarray(x.primal), tangent)


def _on_scalar(rule: Callable) -> Callable:
    def method(self: Dual, *args: Dual, **kwargs: Dual) -> Dual:
        out = rule(_as_0d(self), *args, **kwargs)
        if type(out.primal) is not np.ndarray or out.primal.ndim:
            return out
        tangent = out.tangent
        if tangent is not NoTangent and not is_batched(out.primal, tangent):
            tangent = tangent[()]
        return Dual(out.primal[()], tangent)
    method.__name__ = f"scalar_{getattr(rule, '__name__', 'method')}"
    return method


for _name in METHODS:
    _array_method, _scalar_method = getattr(np.ndarray, _name), getattr(np.generic, _name)
    if kind_of(_array_method) == "nondiff":
        def_nondiff(_scalar_method)
    else:
        frule(_scalar_method)(_on_scalar(get_frule(_array_method)))
