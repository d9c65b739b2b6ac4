"""Which values reverse mode tracks: a Var, a VarMat or a matvar (an object array of
Vars), and containers holding one; a call that sees none runs on plain values.

    is_tracked(Var(1.0))            True
    holds_variable([1.0, (x,)])     True when x is tracked, at any depth
    untracked((2.0, a), {})         True for plain numbers and float arrays: the fast path
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.reverse.kinds import PLAIN_TYPES
from fwdad.reverse.var import Var, VarMat


def is_tracked(x: Any) -> bool:
    t = type(x)
    return t is Var or t is VarMat or (t is np.ndarray and x.dtype == object)


def holds_variable(x: Any) -> bool:
    """Whether `x` is a variable, or a list, tuple or dict holding one at any depth (a
    call holding none runs on plain values)."""
    if isinstance(x, (list, tuple)):
        return any(holds_variable(v) for v in x)
    if isinstance(x, dict):
        return any(holds_variable(v) for v in x.values())
    return is_tracked(x)


def untracked(args: tuple, kwargs: dict) -> bool:
    """Whether a primitive call sees no variable (the fast path of constants)."""
    for a in args:
        t = type(a)
        if t not in PLAIN_TYPES and (t is not np.ndarray or a.dtype.hasobject):
            return False
    for a in kwargs.values():
        t = type(a)
        if t not in PLAIN_TYPES and (t is not np.ndarray or a.dtype.hasobject):
            return False
    return True
