"""Calls with no active argument: the primal call alone, with no rule asked.

    np.hanning(4)                    ->  the window, though np.hanning has no rule
    _fw_getitem(_fw_const(c), _fw_0)  ->  c[0]   (the optimizer, c a constant: no zero
                                                  tangent made, no rule run)

A rule is needed only for the derivative a call passes on. A call of a foreign
function (NumPy's, a C function: not the user's own Python code) whose arguments are
all *data* (numbers, strings, None, arrays of numbers, slices, dtypes, ranges, and
tuples, lists and dicts of those) with zero tangents has none to pass on: the function
sees nothing but those values and its own library's state. Anything else among the
arguments could reach a Dual: a callable (a closure over an active value, a user
function whose mutable default holds one), an instance (its fields, its methods), a
module (its functions), an object array; such calls still ask for their rule, and
raise when it is missing.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from fwdad.core.missing_rules import missing_rule_error
from fwdad.core.written_arrays import WRITTEN, derivative_is_open, refuse_holder
from fwdad.dual import Dual
from fwdad.forward.optimizer.kinds import Kind, is_value
from fwdad.rules.registry import get_frule
from fwdad.tangents import NoTangent

_ATOMS = frozenset({int, float, complex, bool, str, bytes, type(None), slice, range})
_TYPES = frozenset({int, float, complex, bool, str})  # (dtype=float: a type as a dtype)
_ARRAY_DTYPES = frozenset("biufcSUmM")  # (not object arrays: their items may be anything)
_CONTAINERS = (tuple, list)
MAX_ITEMS = 64  # (a check per call: longer containers are not looked through)
MAX_DEPTH = 3


def is_data(value: Any, depth: int = 0) -> bool:
    """Whether `value` is data (see the module docstring): it holds no callable, no
    instance and no module, so no Dual can be reached through it."""
    t = type(value)
    if t in _ATOMS:
        return True
    if t is np.ndarray or isinstance(value, np.generic):
        return value.dtype.kind in _ARRAY_DTYPES
    if isinstance(value, np.dtype):
        return True
    if t is type and (value in _TYPES or issubclass(value, np.generic)):
        return True
    if depth >= MAX_DEPTH or t not in _CONTAINERS and t is not dict or \
            len(value) > MAX_ITEMS:
        return False
    if t is dict:
        return all(is_data(k, depth + 1) and is_data(v, depth + 1)
                   for k, v in value.items())
    return all(is_data(item, depth + 1) for item in value)


def is_data_kind(kind: Optional[Kind]) -> bool:
    """Whether every value of this kind (forward/optimizer/kinds.py) is data: a number,
    a float array, a shape, a slice, or a list, tuple or string-keyed dict of such."""
    if kind is None:
        return False
    if is_value(kind) or kind[0] in ("shape", "slice", "slices"):
        return True
    if kind[0] == "dict":
        return all(is_data_kind(k) for _, k in kind[1])
    return kind[0] in ("list", "tuple") and all(is_data_kind(k) for k in kind[1])


def is_zero_tangent(tangent: Any) -> bool:
    """Whether a tangent is zero: NoTangent, a zero number, an array of zeros (batched
    or not), or a tuple, list or dict of those."""
    if tangent is NoTangent:
        return True
    t = type(tangent)
    if t is float or t is complex:
        return tangent == 0
    if t is np.ndarray:
        return not tangent.any()
    if t in _CONTAINERS:
        return all(is_zero_tangent(item) for item in tangent)
    if t is dict:
        return all(is_zero_tangent(item) for item in tangent.values())
    return False


def constant_primals(args: Tuple[Any, ...], kwargs: Dict[str, Any]
                     ) -> Optional[Tuple[tuple, Dict[str, Any]]]:
    """The primals of the Duals `args` and `kwargs` when every one is data with a zero
    tangent (the call needs no rule), else None."""
    primals = []
    for d in args:
        if not (is_data(d.primal) and is_zero_tangent(d.tangent)):
            return None
        primals.append(d.primal)
    named = {}
    for name, d in kwargs.items():
        if not (is_data(d.primal) and is_zero_tangent(d.tangent)):
            return None
        named[name] = d.primal
    return tuple(primals), named


class MissingRule:
    """Stands for a rule that does not exist; raises at the call, naming the callee,
    unless the call passes no derivative on (data with zero tangents alone), which
    needs only the primal call: its result has a zero tangent."""

    __slots__ = ("fn", "location")

    def __init__(self, fn: Any, location: str) -> None:
        self.fn, self.location = fn, location

    def __call__(self, *args: Dual, **kwargs: Dual) -> Dual:
        rule = get_frule(self.fn)  # registered since the rule was built?
        if rule is not None:
            return rule(*args, **kwargs)
        constant = constant_primals(args, kwargs)
        if constant is not None:
            if WRITTEN and derivative_is_open():  # (`GET = STORE.__getitem__`, STORE
                refuse_holder(self.fn)  # written into: its items may hold derivatives)
            return Dual(self.fn(*constant[0], **constant[1]), NoTangent)
        raise missing_rule_error(self.fn, args, self.location)
