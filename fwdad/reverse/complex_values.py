"""Which reverse values are complex, and which rules may see them (docs/complex.md).

    COMPLEX_READY            the primitives whose rrules are right for complex values
                             (registry.complex_ready adds to it)
    RefusingComplex(fn, r)   a raw rule that refuses complex variables unless ready
    note_complex()           a complex variable exists: raw rules start checking

A Pure rule checks its own values (rule_calls.Pure.record); both refuse through
complexes.refuse_complex, which keeps a complex value that does not depend on the
arguments as a constant.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fwdad.errors import NonDifferentiableError
from fwdad.reverse.var import Var, VarMat

COMPLEX_READY: set = set()


class _Seen:
    """Whether any complex variable was made in this process: until one is, the check
    of raw rules costs one attribute read."""
    complex = False


def note_complex() -> None:
    _Seen.complex = True


def is_complex(x: Any) -> bool:
    """A complex plain value: an array, a Python or a NumPy scalar."""
    return (type(x) is np.ndarray and x.dtype.kind == "c") or isinstance(
        x, (complex, np.complexfloating))


def complex_among(values: list, at: list) -> bool:
    """Whether any of values[i], i in at, is complex (floats are checked first)."""
    for i in at:
        v = values[i]
        t = type(v)
        if t is np.ndarray:
            if v.dtype.kind == "c":
                return True
        elif t is not float and t is not np.float64 and isinstance(
                v, (complex, np.complexfloating)):
            return True
    return False


def complex_variable(x: Any, depth: int = 2) -> bool:
    """A Var or VarMat with a complex value (in lists and tuples too)."""
    t = type(x)
    if t is Var:
        return isinstance(x.value, (complex, np.complexfloating))
    if t is VarMat:
        return x.value.dtype.kind == "c"
    if depth and t in (list, tuple):
        return any(complex_variable(v, depth - 1) for v in x)
    return False


def refuse_complex(fn: Any, variables: list) -> None:
    from fwdad.reverse.complexes import refuse_complex  # (it imports the registry)
    refuse_complex(fn, variables)


class RefusingComplex:
    """A raw rule not declared complex_ready: a complex variable among its arguments is
    refused (once any complex variable exists)."""

    __slots__ = ("key", "rule", "__name__")

    def __init__(self, key: Any, rule: Callable) -> None:
        self.key, self.rule, self.__name__ = key, rule, getattr(rule, "__name__", "rrule")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _Seen.complex and self.key not in COMPLEX_READY:
            found = [a for a in (*args, *kwargs.values()) if complex_variable(a)]
            if found:
                refuse_complex(called_name(self.key, args), found)
        return self.rule(*args, **kwargs)


def called_name(key: Any, args: tuple) -> Any:
    """What the user called: for a method of a C type (a NumPy scalar's), the type of
    the object it was called on (numpy.complex128.conjugate), else the key itself."""
    owner = getattr(key, "__objclass__", None)
    if owner is None or not args:
        return key
    kind = type(args[0].value if type(args[0]) in (Var, VarMat) else args[0])
    return f"{kind.__module__}.{kind.__qualname__}.{key.__name__}"


def no_complex_matvar(what: str = "a complex array") -> None:
    raise NonDifferentiableError(
        f"{what} in the matvar layout (an object array of Vars): reverse mode carries "
        f"complex arrays in the varmat layout only. Leave fwdad.reverse.layout at "
        f"'varmat' (the default) for complex code.")
