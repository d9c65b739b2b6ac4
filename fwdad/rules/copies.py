"""Rules for copy.copy and copy.deepcopy: the tangent is copied as the value is.

    copy.copy(p)       a new object whose fields are p's values; its tangent a new
                       Tangent whose fields are p's field tangents (shared alike)
    copy.deepcopy(p)   every list, dict, array and instance copied, in the value and
                       in the tangent alike (what is shared inside p stays shared)

A class's own `__copy__` runs by its derived rule, as copy.copy calls it; classes that
change how they are copied otherwise (`__deepcopy__`, `__reduce__`, `__getstate__`, ...)
are refused: their copy need not be field by field.
"""
from __future__ import annotations

import copy
import types
from typing import Any, Dict

import numpy as np

from fwdad.core import entry_points
from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, in_user_code
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, Tangent, instance_fields, zero_tangent

_PROTOCOL = ("__copy__", "__deepcopy__", "__reduce_ex__", "__reduce__", "__getstate__",
             "__setstate__", "__new__")


@frule(copy.copy)
def _copy(x: Dual) -> Dual:
    method = getattr(type(x.primal), "__copy__", None)
    if isinstance(method, types.FunctionType):  # the class's own, as copy.copy calls it
        return entry_points.derived_rule(method)(x)
    check_copied_field_by_field(x.primal, "copy.copy", deep=False)
    return Dual(copy.copy(x.primal), _shallow_tangent(x.tangent))


@frule(copy.deepcopy)
def _deepcopy(x: Dual, memo=None) -> Dual:
    if memo is not None:
        raise FwdadError("copy.deepcopy with a memo of your own is not differentiated: "
                         "call copy.deepcopy(x) without one.")
    check_copied_field_by_field(x.primal, "copy.deepcopy", deep=True)
    return Dual(copy.deepcopy(x.primal), _deep_tangent(x.tangent, {}))


def _shallow_tangent(tangent: Any) -> Any:
    """A new container of the same tangents: a copy's own (writable) list, dict or
    field tangents; an array tangent copied as the array is."""
    if isinstance(tangent, Tangent):
        return Tangent(**vars(tangent))
    if isinstance(tangent, list):  # (a global's read-only list too: the copy's own)
        return list(tangent)
    if isinstance(tangent, dict):
        return dict(tangent)
    if isinstance(tangent, np.ndarray):
        return tangent.copy()
    return tangent  # floats, tuples, NoTangent: immutable


def _deep_tangent(tangent: Any, memo: Dict[int, Any]) -> Any:
    if tangent is NoTangent or isinstance(tangent, (float, complex, np.generic)):
        return tangent
    if id(tangent) in memo:
        return memo[id(tangent)]
    if isinstance(tangent, np.ndarray):
        out: Any = tangent.copy()
    elif isinstance(tangent, Tangent):
        out = memo[id(tangent)] = Tangent()
        vars(out).update({k: _deep_tangent(v, memo) for k, v in vars(tangent).items()})
    elif isinstance(tangent, list):
        out = memo[id(tangent)] = []
        out.extend(_deep_tangent(v, memo) for v in tangent)
    elif isinstance(tangent, dict):
        out = memo[id(tangent)] = {}
        out.update((k, _deep_tangent(v, memo)) for k, v in tangent.items())
    elif isinstance(tangent, tuple):
        out = tuple(_deep_tangent(v, memo) for v in tangent)
    elif _is_recorded(tangent):  # (linearize's: a copy recorded on its tape)
        out = tangent.__deepcopy__(memo)
    else:
        raise FwdadError(f"copy.deepcopy{in_user_code()} of a value whose tangent is "
                         f"{a_type(tangent)}: "
                         f"fwdad does not copy it. Copy the fields you need by hand.")
    memo[id(tangent)] = out
    return out


def _is_recorded(tangent: Any) -> bool:
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    return type(tangent) is Linear


def check_copied_field_by_field(x: Any, api: str, deep: bool, seen: Any = None) -> None:
    """Refuse an instance (at any depth for a deep copy) whose class copies itself its
    own way: its copy's fields need not be its fields."""
    seen = set() if seen is None else seen
    if id(x) in seen or isinstance(x, (np.ndarray, float, int, complex, str, type(None))):
        return
    seen.add(id(x))
    instance = isinstance(zero_tangent(x), Tangent)
    if instance:
        _check_protocol(type(x), api)
    if not deep:
        return
    items = list(x.values()) if isinstance(x, dict) else list(x) \
        if isinstance(x, (list, tuple)) else list(instance_fields(x).values()) \
        if instance else []
    for item in items:
        check_copied_field_by_field(item, api, deep, seen)


def _check_protocol(cls: type, api: str) -> None:
    own = [n for n in _PROTOCOL if getattr(cls, n, None) is not getattr(object, n, None)]
    if own:
        line = in_user_code()
        raise FwdadError(
            f"{api} of an instance of {cls.__qualname__}{line}, "
            f"whose class defines {', '.join(own)}: fwdad copies the fields and their "
            f"tangents, which that class need not do. Build the copy in your own code "
            f"({cls.__qualname__}(...) of the fields), or use dataclasses.replace.")
