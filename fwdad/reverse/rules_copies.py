"""Reverse rules for copy.copy and copy.deepcopy, copying as forward mode does
(fwdad/rules/copies.py): a copied array is a new variable whose adjoint goes back to
the original (np.copy's rule), a float array copied from a constant a variable with no
inputs (so that the copy can be written into); a Var, a number, is shared as Python
shares a float.

    copy.copy(p)        a new object holding p's values (arrays shared, as in Python)
    copy.deepcopy(p)    lists, dicts, arrays and instances copied; what is shared inside
                        p stays shared in the copy
"""
from __future__ import annotations

import copy
import types
from typing import Any, Dict

import numpy as np

from fwdad.reverse.registry import get_rrule, raw_rrule
from fwdad.reverse.var import Var, VarMat, is_matvar
from fwdad.rules.copies import check_copied_field_by_field
from fwdad.tangents import Tangent, instance_fields, zero_tangent


@raw_rrule(copy.copy)
def _copy(x: Any) -> Any:
    if type(x) is Var:
        return x
    if type(x) is VarMat or is_matvar(x) or type(x) is np.ndarray:
        return get_rrule(np.copy)(x)
    method = getattr(type(x), "__copy__", None)
    if isinstance(method, types.FunctionType):
        from fwdad.reverse.dispatch import call  # (dispatch imports the rule modules)
        return call(method, x)  # the class's own __copy__, by its reverse rule
    check_copied_field_by_field(x, "copy.copy", deep=False)
    return copy.copy(x)


@raw_rrule(copy.deepcopy)
def _deepcopy(x: Any, memo: Any = None) -> Any:
    if memo is not None:
        return copy.deepcopy(x, memo)  # (refused by the forward rule; plain here)
    check_copied_field_by_field(x, "copy.deepcopy", deep=True)
    return _deep(x, {})


def _deep(x: Any, memo: Dict[int, Any]) -> Any:
    if type(x) is Var:
        return x
    if id(x) in memo:
        return memo[id(x)]
    if type(x) is VarMat or is_matvar(x) or (type(x) is np.ndarray and x.dtype.kind in "fc"):
        out: Any = get_rrule(np.copy)(x)
    elif isinstance(x, list):
        out = memo[id(x)] = []
        out.extend(_deep(v, memo) for v in x)
    elif isinstance(x, dict):
        out = memo[id(x)] = {}
        out.update((k, _deep(v, memo)) for k, v in x.items())
    elif isinstance(x, tuple):
        items = [_deep(v, memo) for v in x]
        out = type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    elif isinstance(zero_tangent(x), Tangent):  # an instance: a copy, its fields copied
        out = memo[id(x)] = copy.copy(x)
        for key, value in instance_fields(x).items():
            object.__setattr__(out, key, _deep(value, memo))
    else:
        out = copy.deepcopy(x)
    memo[id(x)] = out
    return out
