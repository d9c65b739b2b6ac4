"""The user's state after a reverse pass: plain values again, as a plain call leaves it.

Reverse code keeps variables in lists, dicts and objects as they are, so a function
that writes into a list, dict or object it did not make (a mutable default, a global,
an argument left out of argnums) would leave a Var there after `grad`: a later plain
call would then fail on it, or a later derivative read a variable of a finished tape.
Each write of a variable into a Python container or field is noted on the tape region;
when the vjp's forward pass ends, `settle` puts each variable's value in its place:

    def f(x, acc=[]):               after grad(f)(x):
        acc.append(x * 3.0)             f.__defaults__[0] == [array([...])]   (no VarMat)

The tape keeps the variables themselves, so the pullback is unchanged. Lists, dicts
and instances are settled in place (other references to them see the plain values);
a tuple holding a variable is rebuilt.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.probe import probe
from fwdad.reverse.tape import current, recording
from fwdad.reverse.var import Var, VarMat, gather, is_matvar
from fwdad.tangents import Tangent, zero_tangent


def note(container: Any, *values: Any) -> None:
    """A list or dict that `values` are written into."""
    if recording() and any(map(_may_hold_variable, values)):
        current().stores[id(container)] = (container, None)


def note_field(obj: Any, name: str, value: Any) -> None:
    """`obj.name = value`."""
    if recording() and _may_hold_variable(value):
        current().stores[(id(obj), name)] = (obj, name)


_PLAIN_TYPES = frozenset({int, float, bool, complex, str, bytes, type(None), np.float64})


def _may_hold_variable(value: Any) -> bool:
    """False for what cannot hold a variable (plain numbers, plain arrays); a list,
    tuple, dict or instance may, at any depth, and is settled when the pass ends."""
    t = type(value)
    return t not in _PLAIN_TYPES and (t is not np.ndarray or value.dtype == object)


def settle(stores: dict) -> None:
    """Put plain values in place of the variables in every noted container and field."""
    seen: set = set()
    for target, name in stores.values():
        if name is None:
            _settle_container(target, seen)
        else:
            _settle_field(target, name, seen)
    stores.clear()


def settle_tangents(kept: Any) -> None:
    """After `settle` on Dual values (forward over reverse): the Duals kept for the
    user's mutable defaults (forward/defaults.py) have plain values again, and each
    tangent of a variable in them (a Tangent of its value and adjoint) becomes the
    tangent of its value, so that a later call in the same derivative reads a float
    or an array with its derivative."""
    for dual in kept:
        _settle_tangent(dual.primal, dual.tangent, set())


def _settle_tangent(primal: Any, tangent: Any, seen: set) -> Any:
    """The tangent of `primal` (settled) from `tangent`, containers changed in place."""
    if type(tangent) is Tangent and isinstance(primal, (float, np.floating, np.ndarray)):
        value = getattr(tangent, "value", tangent)  # (a Var's or VarMat's tangent)
        return value.copy() if isinstance(value, np.ndarray) else value
    if id(tangent) in seen:
        return tangent
    if isinstance(primal, list) and isinstance(tangent, list) and len(primal) == len(tangent):
        seen.add(id(tangent))
        for i, item in enumerate(primal):
            tangent[i] = _settle_tangent(item, tangent[i], seen)
    elif isinstance(primal, dict) and isinstance(tangent, dict):
        seen.add(id(tangent))
        for key, item in primal.items():
            if key in tangent:
                tangent[key] = _settle_tangent(item, tangent[key], seen)
    return tangent


def _plain(value: Any, seen: set) -> Any:
    """`value` with no variable in it: the same list, dict or instance, settled."""
    t = type(value)
    if t is Var:
        return value.value
    if t is VarMat:
        return value.value.copy()
    if is_matvar(value):
        return gather(value, "value")
    if isinstance(value, (list, dict)) or _is_instance(value):
        _settle_container(value, seen)
        return value
    if isinstance(value, tuple):
        items = [_plain(v, seen) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value


def _settle_container(target: Any, seen: set) -> None:
    if id(target) in seen:
        return
    seen.add(id(target))
    if isinstance(target, list):
        for i, item in enumerate(target):
            plain = _plain(item, seen)
            if plain is not item:
                target[i] = plain
    elif isinstance(target, dict):
        for key, item in target.items():
            plain = _plain(item, seen)
            if plain is not item:
                target[key] = plain
    elif probe(target, "__dict__") is not None:
        for key in list(vars(target)):
            _settle_field(target, key, seen)


def _settle_field(obj: Any, name: str, seen: set) -> None:
    """The field as object.__setattr__ set it (a class's attribute through type's)."""
    fields = probe(obj, "__dict__")
    try:
        value = fields[name] if isinstance(fields, dict) and name in fields else \
            object.__getattribute__(obj, name)
    except (AttributeError, KeyError, TypeError):
        return  # (deleted since, or a field held by a descriptor of the user's)
    plain = _plain(value, seen)
    if plain is value:
        return
    if isinstance(fields, dict) and name in fields:
        fields[name] = plain
    elif isinstance(obj, type):
        type.__setattr__(obj, name, plain)
    else:
        object.__setattr__(obj, name, plain)


def _is_instance(value: Any) -> bool:
    """An instance of a user class (its fields may hold variables)."""
    return not isinstance(value, (np.ndarray, type)) and \
        isinstance(zero_tangent(value), Tangent)
