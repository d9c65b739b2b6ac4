"""Operators on instances of user classes in reverse code: `a + b`, `abs(a)`, `a < b`
with a (or, reflected, b) an instance whose `__add__` (`__radd__`, `__abs__`, `__gt__`)
is Python code run that method's derived reverse rule, as a plain call would run it.

    user_method(operator.mul, (Box(x), x))   ->  the reverse rule of Box.__mul__
    user_method(operator.lt, (2.0, Box(x)))  ->  Box.__gt__'s rule, operands swapped
    user_method(operator.mul, (x, 2.0))      ->  None: the primitive's own rule
"""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Dict, Optional

import numpy as np

from fwdad.core.lazy_rule import LazyRule
from fwdad.core.numpy_binops import refuse_reflected
from fwdad.probe import probe, shallow_copy
from fwdad.reverse.var import Var, VarMat, compared_value, value_of

_DUNDERS = {operator.add: "add", operator.sub: "sub", operator.mul: "mul",
            operator.truediv: "truediv", operator.matmul: "matmul", operator.pow: "pow",
            operator.mod: "mod", operator.floordiv: "floordiv", operator.neg: "neg",
            operator.pos: "pos", operator.abs: "abs", abs: "abs",
            operator.getitem: "getitem", operator.setitem: "setitem",
            operator.lt: "lt", operator.le: "le", operator.gt: "gt", operator.ge: "ge",
            operator.eq: "eq", operator.ne: "ne"}
_IN_PLACE = {operator.iadd: "iadd", operator.isub: "isub", operator.imul: "imul",
             operator.itruediv: "itruediv", operator.ipow: "ipow", operator.imod: "imod",
             operator.imatmul: "imatmul", operator.ifloordiv: "ifloordiv"}
_DUNDERS.update(_IN_PLACE)  # (`a += b` runs a's __iadd__; without one, a = a + b)
# the method Python tries on the right operand: __radd__ for +, __gt__ for <, ...
_REFLECTED = {"lt": "__gt__", "le": "__ge__", "gt": "__lt__", "ge": "__le__",
              "eq": "__eq__", "ne": "__ne__", "getitem": None, "setitem": None,
              **{name: None for name in _IN_PLACE.values()}}
_METHODS: Dict[tuple, Any] = {}


def user_method(fn: Any, args: tuple) -> Optional[Callable]:
    """For `a + b` with a (or, reflected, b) an instance of a class whose `__add__` is
    Python code: that method's reverse rule, bound to the arguments' order; else None.
    (Operators reach it from Pure and NonDiff rules alike, whether or not the other
    operand is a variable: tests/reverse/test_objects.py.)"""
    name = _DUNDERS.get(fn)
    if name is None or not args:
        return None
    method = None if type(args[0]) in _PLAIN else method_rule(type(args[0]), f"__{name}__")
    if method is not None:
        return method
    reflected_name = _REFLECTED.get(name, f"__r{name}__")
    if len(args) == 2 and type(args[0]) in (np.ndarray, VarMat) and \
            type(args[1]) not in _PLAIN:
        _refuse_numpy_loop(name, args)
    if len(args) == 2 and type(args[1]) not in _PLAIN and reflected_name is not None:
        reflected = method_rule(type(args[1]), reflected_name)
        if reflected is not None:
            return lambda a, b: reflected(b, a)
    return None


_PLAIN = {int, float, bool, str, list, tuple, dict, np.ndarray, Var, VarMat, type(None)}


def is_plain(value: Any) -> bool:
    """A value of a built-in type whose operators are never a user's methods."""
    return type(value) in _PLAIN or type(value) in _BUILT_IN_ITERABLES


_BUILT_IN_ITERABLES = {range, set, frozenset, enumerate, zip, map, filter, reversed,
                       type(iter([])), type(iter(())), type(iter(range(0))),
                       type({}.items()), type({}.keys()), type({}.values())}


def _refuse_numpy_loop(name: str, args: tuple) -> None:
    """An array <op> an instance with a Python reflected method: refused where NumPy
    would not call that method once with the whole array (fwdad/core/numpy_binops.py)."""
    in_place = name in _IN_PLACE.values()
    plain = name[1:] if in_place else name
    reflected = _REFLECTED.get(plain, f"__r{plain}__")
    if reflected is not None and method_rule(type(args[1]), reflected) is not None:
        refuse_reflected(value_of(args[0]), args[1], reflected, in_place)


def method_rule(cls: type, name: str) -> Optional[Callable]:
    """The reverse rule of cls's method `name` when that is Python code, else None."""
    key = (cls, name)
    if key not in _METHODS:
        from fwdad.reverse.dispatch import derived_rrule
        from fwdad.source import has_source, is_library, python_function
        fn = python_function(getattr(cls, name, None))
        if fn is None or is_library(fn):
            _METHODS[key] = None
        elif not has_source(fn) and name in _COMPARISONS:  # @dataclass(eq=, order=)
            _METHODS[key] = functools.partial(_on_values, fn)
        else:
            _METHODS[key] = LazyRule(fn, derived_rrule)
    return _METHODS[key]


_COMPARISONS = {f"__{name}__" for name in ("lt", "le", "gt", "ge", "eq", "ne")}


def _on_values(fn: Callable, *args: Any) -> Any:
    """A generated comparison (no source: it compares the fields' tuples) on copies of
    the instances whose fields are values, as forward mode compares primals: the
    result carries no derivative (tests/language/stdlib.py, dataclass_generated_methods)."""
    return fn(*map(_with_values, args))


def _with_values(obj: Any) -> Any:
    fields = probe(obj, "__dict__")
    if not fields or type(obj) in _PLAIN:
        return obj
    plain = shallow_copy(obj)
    for name, value in fields.items():
        object.__setattr__(plain, name, compared_value(value))
    return plain
