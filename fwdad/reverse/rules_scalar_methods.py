"""Reverse rules for the methods of NumPy scalars (`np.sum(x).round(2)`,
`total.clip(0.0, 1.0)`): as in forward mode (fwdad/rules/scalar_methods.py), a NumPy
scalar's method runs the ndarray method's rule on the scalar as a 0-d array (a 0-d
matvar holding the scalar's Var), and a 0-d result is a scalar again."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fwdad.reverse.registry import get_rrule, raw_rrule
from fwdad.reverse.var import Var
from fwdad.rules import registry as forward_registry
from fwdad.rules.scalar_methods import METHODS


def _as_0d(x: Any) -> np.ndarray:
    if type(x) is not Var:
        return np.asarray(x)
    held = np.empty((), dtype=object)
    held[()] = x
    return held


def _on_scalar(name: str) -> Callable:
    array_method = getattr(np.ndarray, name)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = get_rrule(array_method)(_as_0d(self), *args, **kwargs)
        return out[()] if type(out) is np.ndarray and out.ndim == 0 else out
    method.__name__ = f"scalar_{name}"
    return method


for _name in METHODS + ("item", "tolist"):
    if forward_registry.kind_of(getattr(np.generic, _name)) != "nondiff":
        raw_rrule(getattr(np.generic, _name))(_on_scalar(_name))
