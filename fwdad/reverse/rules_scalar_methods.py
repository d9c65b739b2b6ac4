"""Reverse rules for the methods of NumPy scalars (`np.sum(x).round(2)`,
`total.clip(0.0, 1.0)`, `z.conjugate()`): as in forward mode
(fwdad/rules/scalar_methods.py), a NumPy scalar's method runs the ndarray method's rule
on the scalar as a 0-d array, and a 0-d result is a scalar again. A real scalar's Var
is held in a 0-d matvar; a complex one in a 0-d varmat, the layout that carries complex
values (docs/complex.md), so that the ndarray method's rule checks it as any complex
array (rules_complex.py declares the methods whose rules are right for it)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fwdad.reverse.adjoints import accumulate
from fwdad.reverse.complex_values import is_complex
from fwdad.reverse.registry import get_rrule, raw_rrule
from fwdad.reverse.rules_arrays import getitem
from fwdad.reverse.tape import current
from fwdad.reverse.var import Var, VarMat
from fwdad.rules import registry as forward_registry
from fwdad.rules.scalar_methods import METHODS


def _as_0d(x: Any, makes_complex: bool) -> Any:
    if type(x) is not Var:
        return np.asarray(x)
    if makes_complex or is_complex(x.value):
        return _as_varmat(x)
    held = np.empty((), dtype=object)
    held[()] = x
    return held


def _as_varmat(x: Var) -> VarMat:
    """A 0-d varmat whose adjoint flows back into x (recorded)."""
    out = VarMat(np.asarray(x.value))

    def pull_back() -> None:
        if out.has_adjoint:
            accumulate(x, out.adjoint[()])
    current().push(pull_back, out)
    return out


def _as_scalar(out: Any) -> Any:
    if type(out) is VarMat and out.ndim == 0:
        return getitem(out, ())  # (a Var, whose adjoint flows back into out)
    return out[()] if type(out) is np.ndarray and out.ndim == 0 else out


def _to_complex(dtype: Any = None, *args: Any, **kwargs: Any) -> bool:
    """Whether astype's dtype is complex: a real scalar cast to it is complex, which a
    matvar does not hold."""
    try:
        return bool(np.dtype(dtype).kind == "c")
    except TypeError:
        return False


def _on_scalar(name: str) -> Callable:
    # (a NumPy scalar's tolist() is its item(): ndarray.tolist's rule makes a matvar,
    # which holds no complex value)
    array_method = getattr(np.ndarray, "item" if name == "tolist" else name)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        held = _as_0d(self, name == "astype" and _to_complex(*args, **kwargs))
        return _as_scalar(get_rrule(array_method)(held, *args, **kwargs))
    method.__name__ = f"scalar_{name}"
    return method


for _name in METHODS + ("item", "tolist"):
    if forward_registry.kind_of(getattr(np.generic, _name)) != "nondiff":
        raw_rrule(getattr(np.generic, _name))(_on_scalar(_name))
