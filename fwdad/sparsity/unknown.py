"""Inputs whose values are unknown, for global sparsity patterns.

`Unknown` is a float array that computes as usual (its values are the user's), but
marks every value computed from it as unknown too, and refuses anything that would let
such a value steer the program: `if`, `while`, `and`/`or`, `int(...)`, `float(...)`,
an index or a loop bound. A pattern found without those is the same for every input.

    x = known_nothing(np.ones(3)); y = np.sin(x) * 2   # y is Unknown too
    if y[0] > 0: ...                                   # ValueDependentPatternError
"""
from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from fwdad.errors import ValueDependentPatternError, in_user_code


def refuse(what: str) -> NoReturn:
    """Raise the global-mode refusal, naming the user's line running now."""
    at = in_user_code()
    raise ValueDependentPatternError(
        f"jacobian_sparsity(mode='global'): the pattern depends on {what}"
        f"{at}: a value computed from the inputs decides it, so "
        f"no one pattern holds for every input. Use mode='local' for the pattern at "
        f"this input, or write the code without depending on input values there "
        f"(np.where instead of `if`, a fixed loop bound).")


class Unknown(np.ndarray):
    """A float array whose values count as unknown (see the module docstring)."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            kwargs["out"] = tuple(plain(o) for o in kwargs["out"])
        return unknown(getattr(ufunc, method)(*map(plain, inputs), **kwargs))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        out = func(*plain(args), **plain(kwargs))
        return out if func in _VALUE_FREE else unknown(out)

    def __getitem__(self, index: Any) -> Any:
        _check_index(index)
        return unknown(np.asarray(plain(self)[index]))

    def __setitem__(self, index: Any, value: Any) -> None:
        _check_index(index)
        plain(self)[index] = plain(value)

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __bool__(self) -> bool:
        refuse("a branch on values (`if`, `while`, `and`, `or`)")

    def __int__(self) -> int:
        refuse("a value turned into a Python int")

    def __index__(self) -> int:
        refuse("a value used as an index or a count")

    def __float__(self) -> float:
        refuse("a value turned into a Python float (math functions, float(...))")

    def __complex__(self) -> complex:
        refuse("a value turned into a Python complex")

    def item(self, *args: Any) -> Any:
        refuse("a value taken out of its array (.item())")

    def tolist(self) -> Any:
        refuse("values taken out of their array (.tolist())")


# Functions whose result does not depend on the values of their arguments.
_VALUE_FREE = frozenset({np.zeros_like, np.ones_like, np.empty_like, np.shape, np.ndim,
                         np.size, np.result_type})


def known_nothing(x: Any) -> Unknown:
    """`x` as a float array whose values count as unknown."""
    return np.array(x, dtype=np.result_type(x, np.float64)).view(Unknown)


def unknown(value: Any) -> Any:
    """Mark the numeric arrays and NumPy scalars in `value` as unknown (dependency-set
    arrays, of dtype object, stay as they are)."""
    if isinstance(value, Unknown):
        return value  # (a new view would hide that it is a view: rules compare bases)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray) and value.dtype == object:  # sets: a 0-d array
        return value[()] if value.ndim == 0 else value  # of them is one, as for floats
    if isinstance(value, np.ndarray):
        return value.view(Unknown)
    if type(value) in (tuple, list):
        return type(value)(unknown(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_make"):  # np.linalg's results
        return value._make(unknown(v) for v in value)
    return value


def plain(value: Any) -> Any:
    """`value` with its Unknown arrays as plain arrays (in tuples, lists, dicts too)."""
    if isinstance(value, Unknown):
        return value.view(np.ndarray)
    if type(value) in (tuple, list):
        return type(value)(plain(v) for v in value)
    if type(value) is dict:
        return {k: plain(v) for k, v in value.items()}
    return value


def _check_index(index: Any) -> None:
    parts = index if type(index) is tuple else (index,)
    if any(isinstance(part, Unknown) for part in parts):
        refuse("an index computed from input values")


# ---- .item() and .tolist(): values out of their array --------------------------------
def _taken_out(method: str) -> Any:
    """The rule of Unknown's `method`: a value that depends on no input (Unknown only
    because every array a primitive returns counts as unknown) comes out as NumPy gives
    it, a constant; one that depends on the inputs is refused at the user's line (as a
    Python number it would carry no dependencies)."""
    from fwdad.dual import Dual
    from fwdad.sparsity.deps import bits_of
    from fwdad.tangents import NoTangent

    def rule(x: Dual, *args: Any) -> Dual:
        if x.tangent is not NoTangent and bits_of(np.asarray(x.tangent, dtype=object)):
            getattr(x.primal, method)(*args)  # (refuses, naming the user's line)
        return Dual(getattr(plain(x.primal), method)(*args), NoTangent)
    rule.__name__ = f"_unknown_{method}"
    return rule


def _register() -> None:
    from fwdad.rules.registry import frule
    for method in ("item", "tolist"):
        frule(getattr(Unknown, method))(_taken_out(method))


_register()
