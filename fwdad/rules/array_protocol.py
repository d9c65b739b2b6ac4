"""A user instance that carries a derivative, where NumPy reads it as an array.

NumPy makes an array of an object by calling `type(b).__array__(b)`: in np.asarray(b)
and np.array(b), in a ufunc (np.sin(b)), in a NumPy function (np.sum(b)), and in an
operator whose other operand is an array (`b + x`, when b's class defines no `__add__`).
When that method is Python code, its derived rule gives the array and its tangent, called
as NumPy calls it: `__array__()`, `__array__(dtype)` when a dtype is asked for, and
`copy=` when one is (and the method takes it).

    np.sin(Box(x))              ->  np.sin(<derived rule of Box.__array__>(box))
    np.asarray(box, np.float32) ->  Box.__array__(box, float32), cast as NumPy casts it

Refused at the user's line (not modelled): a class whose `__array__` is not Python (a
type written in C), and one that takes over NumPy with `__array_ufunc__` or
`__array_function__` (NumPy calls those instead), or that sets `__array_priority__`
(which decides whether `array + b` is NumPy's or b's own `__radd__`).
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Optional, Tuple

import numpy as np

from fwdad.core import entry_points
from fwdad.core.read_only import is_zero
from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, describe, in_user_code
from fwdad.probe import probe
from fwdad.rules.batching import created_tangent
from fwdad.source import python_function
from fwdad.tangents import NoTangent, Tangent

_OVERRIDES = ("__array_ufunc__", "__array_function__", "__array_priority__")
_MISSING = object()


def reads_as_array(d: Any) -> bool:
    """Whether `d` is an instance that carries a derivative and whose class NumPy reads
    as an array (it defines `__array__`)."""
    return isinstance(d, Dual) and type(d.tangent) is Tangent and \
        defines_array(type(d.primal))


@functools.lru_cache(maxsize=None)
def defines_array(cls: type) -> bool:
    """Whether NumPy reads an instance of cls by its `__array__`."""
    return probe(cls, "__array__") is not None


def as_array(d: Dual, fn: Any, dtype: Any = None, copy: Optional[bool] = None
             ) -> Tuple[Optional[Dual], Optional[bool]]:
    """The Dual of the array `fn` (a NumPy callable) makes of the instance d, by the
    derived rule of its class's `__array__`; and the copy NumPy still makes of that
    array (`copy`, when `__array__` does not take a `copy=` parameter; else None). For
    an instance whose reading is not modelled and whose tangent is zero, None: NumPy's
    to make.

    Raises:
        FwdadError: NumPy's conversion of this class is not modelled (see the module).
    """
    method = array_method(type(d.primal))
    if method is None:
        if not is_zero(d.tangent):
            raise refusal(type(d.primal), fn)
        return None, copy  # (NumPy reads a constant by itself)
    args, kwargs, copy = numpy_call(method, d, dtype, copy, lambda v: Dual(v, NoTangent))
    out = entry_points.derived_rule(method)(*args, **kwargs)
    check_array(out.primal)
    return out, copy


def implicit_array(d: Dual, fn: Any) -> Dual:
    """What NumPy reads an argument of `fn` as: the array `__array__` gives for an
    instance that carries a derivative, else d itself."""
    if not reads_as_array(d):
        return d
    out = as_array(d, fn)[0]
    return constant_array(np.asarray(d.primal)) if out is None else out


def constant_array(out: np.ndarray) -> Dual:
    """An array NumPy made of a constant, with a zero tangent (batched in a batched
    call) when it is a float one."""
    return Dual(out, created_tangent(out) if out.dtype.kind in "fc" else NoTangent)


def numpy_call(method: Any, obj: Any, dtype: Any, copy: Optional[bool],
               const: Callable[[Any], Any]) -> Tuple[tuple, dict, Optional[bool]]:
    """(args, kwargs) of NumPy's call of `method` on obj (`const` makes a constant
    argument), and the copy NumPy makes after it: `copy` when the method takes none."""
    args = (obj,) if dtype is None else (obj, const(np.dtype(dtype)))
    if copy is None:
        return args, {}, None
    if takes_copy(method):
        return args, {"copy": const(copy)}, None
    return args, {}, copy


def check_array(array: Any) -> None:
    """NumPy's own check of what `__array__` gave."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"object __array__ method not producing an array (it gave "
                        f"{a_type(array)})")


@functools.lru_cache(maxsize=None)
def array_method(cls: type) -> Any:
    """cls.__array__ as Python code, when NumPy's reading of cls is modelled (it is
    not when cls takes over NumPy with an override, even one set to None); else None."""
    if any(probe(cls, name, _MISSING) is not _MISSING for name in _OVERRIDES):
        return None
    return python_function(probe(cls, "__array__"))


def refusal(cls: type, fn: Any) -> FwdadError:
    """Why fwdad does not differentiate NumPy's reading of an instance of cls."""
    override = next((name for name in _OVERRIDES
                     if probe(cls, name, _MISSING) is not _MISSING), None)
    why = (f"its class defines {override}, which changes how NumPy treats it, and fwdad "
           f"does not model that" if override else
           "its class's __array__ is not Python code fwdad can differentiate")
    what = describe(fn) if fn is not None else "NumPy's conversion to an array"
    return FwdadError(
        f"fwdad cannot differentiate {what} of a {cls.__name__} instance that carries a "
        f"derivative{in_user_code()}: {why}. Pass the array it holds instead (e.g. "
        f"`{_short(fn)}(obj.values)`), or define __array__ in Python and no "
        f"{' or '.join(_OVERRIDES[:2])}.")


def _short(fn: Any) -> str:
    name = probe(fn, "__name__", "np.asarray")
    return f"np.{name}" if isinstance(fn, np.ufunc) or \
        (probe(fn, "__module__", "") or "").startswith("numpy") else name


@functools.lru_cache(maxsize=None)
def takes_copy(method: Any) -> bool:
    """Whether NumPy's `copy=` reaches `method` (it has a `copy` or a `**` parameter)."""
    params = inspect.signature(method).parameters.values()
    return any(p.name == "copy" and p.kind != p.POSITIONAL_ONLY or p.kind == p.VAR_KEYWORD
               for p in params)
