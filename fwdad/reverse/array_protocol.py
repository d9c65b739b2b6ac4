"""Reverse mode's reading of an instance as an array, where NumPy reads it so: the
reverse rule of its class's Python `__array__`, called as NumPy calls it (the model, and
what is refused, are fwdad/rules/array_protocol.py's).

    np.sin(box)        ->  np.sin(<reverse rule of Box.__array__>(box))   (rule_calls.Pure)
    np.asarray(box)    ->  the same array (rules_creation.asarray)
    box + x, x + box   ->  np.add of the array, where NumPy would make one (below)
"""
from __future__ import annotations

import functools
import operator
from typing import Any, Optional, Tuple

import numpy as np

from fwdad.probe import probe
from fwdad.reverse.instances import method_rule
from fwdad.reverse.kinds import PLAIN_TYPES
from fwdad.reverse.tracked import holds_variable
from fwdad.reverse.var import Var, VarMat, value_of
from fwdad.rules.array_protocol import array_method, check_array, numpy_call, refusal

_ARRAYS = (np.ndarray, np.generic, Var, VarMat)
NUMPY_VALUES = (np.ndarray, np.generic, VarMat)
# the operators that make an array of an instance operand (NumPy's binary ufuncs)
_OPERATORS = {fn: f"__{fn.__name__.strip('_')}__" for fn in (
    operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.mod,
    operator.matmul, operator.floordiv)}


def reads_as_array(x: Any) -> bool:
    """Whether x is an instance (not an array or a variable) whose class defines
    `__array__`."""
    t = type(x)
    return t not in PLAIN_TYPES and _defines_array(t)


@functools.lru_cache(maxsize=None)
def _defines_array(cls: type) -> bool:
    return not issubclass(cls, _ARRAYS) and probe(cls, "__array__") is not None


def as_array(x: Any, fn: Any, dtype: Any = None, copy: Optional[bool] = None
             ) -> Tuple[Any, Optional[bool]]:
    """The array (a variable when it depends on one) `fn` makes of the instance x, by
    the reverse rule of its class's `__array__`, and the copy NumPy still makes of it
    (rules/array_protocol.as_array). An instance whose reading is not modelled is
    refused when it holds a variable, and left to NumPy when it does not."""
    method = array_method(type(x))
    rule = None if method is None else method_rule(type(x), "__array__")
    if rule is None:
        if any(holds_variable(v) for v in probe(x, "__dict__", {}).values()):
            raise refusal(type(x), fn)
        return x, copy
    args, kwargs, copy = numpy_call(method, x, dtype, copy, lambda v: v)
    out = rule(*args, **kwargs)
    check_array(value_of(out))
    return out, copy


def implicit_array(x: Any, fn: Any) -> Any:
    """What NumPy reads an argument of `fn` as: the array an instance's `__array__`
    gives, else x itself."""
    return as_array(x, fn)[0] if reads_as_array(x) else x


def operands(fn: Any, args: tuple) -> tuple:
    """The operands of the operator `fn` (operator.add, ...) with an instance made the
    array NumPy makes of it: `array + box` is np.add(array, box), whatever box's
    `__radd__`; `box + array` is when box's class defines no `__add__` in Python (then
    the array's `__radd__` runs: np.add)."""
    name = _OPERATORS.get(fn)
    if name is None or len(args) != 2:
        return args
    x, y = args
    if isinstance(x, NUMPY_VALUES) and reads_as_array(y):
        return x, as_array(y, fn)[0]
    if isinstance(y, NUMPY_VALUES) and reads_as_array(x) and \
            method_rule(type(x), name) is None:
        return as_array(x, fn)[0], y
    return args
