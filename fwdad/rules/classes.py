"""Rules for user classes: operators defined by dunder methods, and super().

An operand whose tangent is a structural `Tangent` is an instance of a user class; its
operators go to the derived rules of its dunder methods, in Python's order (`__add__`,
then the other operand's `__radd__` if that gave NotImplemented). So does an object
without a tangent (`np.r_`, a class with `__slots__`) whose Python dunder receives an
operand that has one: `np.r_[x, y]` is `RClass.__getitem__((x, y))`, whose result
depends on x and y although np.r_ itself is a constant.
"""
from __future__ import annotations

import functools
from typing import Callable, Optional

import numpy as np

from fwdad.core import entry_points
from fwdad.core.numpy_binops import refuse_reflected
from fwdad.dual import Dual
from fwdad.rules.array_protocol import implicit_array, reads_as_array
from fwdad.rules.plain_params import with_plain_params
from fwdad.rules.registry import frule
from fwdad.source import python_function
from fwdad.tangents import NoTangent, Tangent


def _python_method(obj, name: Optional[str]):
    return python_method_of(type(obj), name)


@functools.lru_cache(maxsize=None)
def python_method_of(cls: type, name: Optional[str]):
    method = getattr(cls, name, None) if name else None
    return method if python_function(method) is not None else None


def opaque_with_dunder(x: Dual, rest: tuple, name: str) -> bool:
    """x carries no tangent, an operand does, and x's class defines `name` in Python:
    the operator's meaning is that code, not the rule for numbers and arrays."""
    return x.tangent is NoTangent and any(_carries(d.tangent) for d in rest) \
        and _python_method(x.primal, name) is not None


def _carries(tangent) -> bool:
    if isinstance(tangent, (tuple, list)):
        return any(_carries(t) for t in tangent)
    return tangent is not NoTangent


def call_dunder(name: str, reflected: Optional[str], x: Dual, *rest: Dual,
                in_place: bool = False) -> Dual:
    """`x.name(*rest)`, else `rest[0].reflected(x)`, through derived rules (`in_place`:
    for an in-place operator x has no method of)."""
    method = _python_method(x.primal, name)
    if method is not None:
        out = entry_points.derived_rule(method)(x, *rest)
        if out.primal is not NotImplemented:
            return out
    other = _python_method(rest[0].primal, reflected) if rest else None
    if other is not None:
        refuse_reflected(x.primal, rest[0].primal, reflected, in_place)
        out = entry_points.derived_rule(other)(rest[0], x)
        if out.primal is not NotImplemented:
            return out
    kinds = ", ".join(type(d.primal).__name__ for d in (x,) + rest)
    raise TypeError(f"unsupported operand type(s) for {name}: {kinds}")


def overloadable(name: str, reflected: Optional[str] = None,
                 fallback: Optional[str] = None) -> Callable:
    """Decorate an operator rule so that user instances use their own dunders.
    `fallback`: for in-place operators, the plain dunder to use when there is no
    in-place one (`a += b` on an object without `__iadd__` is `a = a + b`)."""
    def wrap(rule: Callable) -> Callable:
        plain = with_plain_params(rule)  # the rule as registered on its own

        def checked(x: Dual, *rest: Dual) -> Dual:
            # (NoTangent tested here first, as this runs for every operator; no local
            # may hold x.tangent: widening counts its references, rules/widening.py)
            if type(x.tangent) is Tangent or (rest and type(rest[0].tangent) is Tangent) \
                    or (x.tangent is NoTangent and opaque_with_dunder(x, rest, name)):
                if name in _NUMPY_OPERATORS and _numpy_reads(x, rest):
                    return plain(x, implicit_array(rest[0], None))
                if fallback and _python_method(x.primal, name) is None:
                    return call_dunder(fallback, "__r" + fallback[2:], x, *rest,
                                       in_place=True)
                if _defined_by_neither(x, rest, name, reflected):
                    return plain(x, *rest)  # e.g. d[key], key an instance: dict's own
                return call_dunder(name, reflected, x, *rest)
            return plain(x, *rest)
        checked.__name__ = rule.__name__
        checked.__doc__ = rule.__doc__
        return checked
    return wrap


# NumPy's binary ufuncs: `array + box` is np.add(array, box), which reads box by its
# __array__ when its class defines one, whatever box's __radd__ (tests/test_array_protocol.py)
_NUMPY_OPERATORS = frozenset(f"__{i}{op}__" for i in ("", "i") for op in (
    "add", "sub", "mul", "truediv", "pow", "mod", "matmul"))
_NUMPY_VALUES = (np.ndarray, np.generic)


def _numpy_reads(x: Dual, rest: tuple) -> bool:
    """Whether x is a NumPy array or scalar and the other operand an instance that
    carries a derivative and that NumPy reads as an array."""
    return len(rest) == 1 and isinstance(x.primal, _NUMPY_VALUES) and reads_as_array(rest[0])


def _defined_by_neither(x: Dual, rest: tuple, name: str, reflected: Optional[str]) -> bool:
    """Whether neither operand's class defines the operator in Python: a container of
    the language's own indexed by an instance (a dict keyed by instances whose __eq__
    and __hash__ are the user's), which the built-in operator does, as in Python."""
    return _python_method(x.primal, name) is None and not (
        reflected and rest and _python_method(rest[0].primal, reflected) is not None)


@frule(super)
def _super(cls, obj: Dual) -> Dual:
    """super(C, obj): its methods are bound to obj, so it carries obj's tangent."""
    return Dual(super(cls, obj.primal), obj.tangent)
