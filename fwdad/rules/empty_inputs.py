"""Rules at an empty array (shape (0, ...), what a filter that keeps nothing gives), for
functions differentiated in one array argument: NumPy's or SciPy's result, with a zero
derivative, since an empty array has no entry to move.

    @frule(np.linalg.svd)                 @rrule(np.linalg.svd)
    @zero_at_empty(np.linalg.svd)         @zero_at_empty_rrule(np.linalg.svd)
    def svd_rule(a: Dual, ...): ...       def _svd(a, ...): ...

The rules below these decorators check spectra, pivots and extreme entries, which
NumPy's reductions cannot do on nothing: at an empty first argument, the decorator
answers without them (where the function itself raises, it raises the same).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from fwdad.dual import Dual
from fwdad.tangents import NoTangent


def _primal(value: Any) -> Any:
    return value.primal if isinstance(value, Dual) else value


def zero_at_empty(fn: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate the forward rule of `fn`, whose first parameter is the one array it
    differentiates: at an empty first argument, fn's result with no tangent."""
    def wrap(rule: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(rule)
        def rule_or_zero(x: Dual, *args: Any, **kwargs: Any) -> Dual:
            if np.size(x.primal) == 0:
                return Dual(fn(x.primal, *map(_primal, args),
                               **{k: _primal(v) for k, v in kwargs.items()}), NoTangent)
            return rule(x, *args, **kwargs)
        return rule_or_zero
    return wrap


def zero_at_empty_rrule(fn: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate the pure reverse rule of `fn`, whose first parameter is the one array it
    differentiates: at an empty first argument, fn's result and an empty cotangent."""
    def wrap(rule: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(rule)
        def rule_or_zero(x: Any, *args: Any, **kwargs: Any) -> Any:
            if np.size(x) == 0:
                zero = np.zeros(np.shape(x), np.result_type(np.asarray(x).dtype, float))
                return fn(x, *args, **kwargs), lambda ct: (zero,)
            return rule(x, *args, **kwargs)
        return rule_or_zero
    return wrap
