"""np.piecewise, written in plain NumPy for both modes to differentiate.

NumPy's own is library code (a foreign call); `piecewise` below computes the same: it
calls each function of `funclist` on the items of x where its condition holds (a
dynamic call, differentiated as the user's code is) and writes the results into an
array of zeros. Forward mode runs its derived rule; reverse mode's rule is composed
from it (reverse/rules_array_api.py).

    np.piecewise(x, [x < 0, x >= 0], [lambda v: v * v, np.sin])
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.core import entry_points
from fwdad.dual import Dual
from fwdad.rules.registry import frule


def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    """What np.piecewise computes (numpy/lib/_function_base_impl.py), in code fwdad
    differentiates."""
    x = np.asanyarray(x)
    conditions = conditions_of(x, condlist, len(funclist))
    y = np.zeros_like(x)
    for cond, func in zip(conditions, funclist):
        if not callable(func):
            y[cond] = func
        elif np.any(cond):
            y[cond] = func(x[cond], *args, **kw)
    return y


def conditions_of(x: Any, condlist: Any, count: int) -> np.ndarray:
    """The bool conditions, one per function: np.piecewise's promotion of a single
    condition to a list, and the "otherwise" condition when there is one more
    function than conditions."""
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray))
                                 and np.ndim(x) != 0):
        condlist = [condlist]
    conditions = np.asarray(condlist, dtype=bool)
    if len(conditions) == count - 1:
        otherwise = ~np.any(conditions, axis=0, keepdims=True)
        conditions = np.concatenate([conditions, otherwise], axis=0)
    elif len(conditions) != count:
        raise ValueError(f"with {len(conditions)} condition(s), either {len(conditions)} "
                         f"or {len(conditions) + 1} functions are expected")
    return conditions


@frule(np.piecewise)
def _piecewise(x: Dual, condlist: Dual, funclist: Dual, *args: Dual, **kw: Dual) -> Dual:
    return entry_points.derived_rule(piecewise)(x, condlist, funclist, *args, **kw)
