"""What a value is to a reverse rule: plain, a variable, or anything else.

    kind_of(1.5), kind_of(np.ones(3)), kind_of(4)   ->  PLAIN      (holds no variable)
    kind_of(Var(1.5)), kind_of(VarMat(...))         ->  VARIABLE   (a leaf: no fields)
    kind_of([Var(1.5)]), kind_of(obj), matvars      ->  OTHER      (may hold variables)
    signature((VarMat(...), 128))                   ->  (VARIABLE, PLAIN)

A derived reverse rule is specialized on the signature of its positional arguments
(fwdad/reverse/specialize.py): what it computes from PLAIN arguments alone runs as
plain NumPy (fwdad/reverse/activity.py).
"""
from __future__ import annotations

import types
from typing import Any, Tuple

import numpy as np

from fwdad.reverse.var import Var, VarMat

PLAIN, VARIABLE, OTHER = "plain", "variable", "other"

# Types of values that hold no variable and have no operators of their own (an object
# array may hold Vars; a list, a tuple or an instance may hold anything).
PLAIN_TYPES = frozenset({float, int, bool, str, type(None), slice, type(Ellipsis),
                         np.float64, np.float32, np.int64, np.int32, np.bool_, complex,
                         np.complex128})


def kind_of(x: Any) -> str:
    t = type(x)
    if t is Var or t is VarMat:
        return VARIABLE
    if t in PLAIN_TYPES or (t is np.ndarray and not x.dtype.hasobject):
        return PLAIN
    return OTHER


def signature(args: tuple) -> Tuple[str, ...]:
    """The kinds of `args` (a loop rather than map(kind_of, ...): it runs per call)."""
    out = []
    for a in args:
        t = type(a)
        out.append(VARIABLE if t is Var or t is VarMat else PLAIN if t in PLAIN_TYPES or (
            t is np.ndarray and not a.dtype.hasobject) else OTHER)
    return tuple(out)


def plain_constant(value: Any) -> bool:
    """Whether a value known when the rule is built (a global, a module attribute) can
    never hold a variable: plain values, tuples of them, dtypes, NumPy and builtin types
    and C functions. Lists, dicts, instances and Python functions may be changed, or
    read state that is, while the rule runs."""
    t = type(value)
    if t in PLAIN_TYPES or (t is np.ndarray and not value.dtype.hasobject):
        return True
    if t is tuple:
        return all(plain_constant(v) for v in value)
    if isinstance(value, (np.dtype, np.ufunc)):
        return True
    if isinstance(value, type):
        return value.__module__ in ("builtins", "numpy")
    return isinstance(value, types.BuiltinFunctionType) and isinstance(
        getattr(value, "__self__", None), (types.ModuleType, type(None)))
