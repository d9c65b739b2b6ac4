"""When NumPy lets a user class's reflected operator take a whole array.

    array + r    ->  r.__radd__(array), once, if ndarray's __add__ defers to r
                 ->  else np.add(array, r): r.__radd__(item) for each item, into an
                     object array (NumPy's ufunc on object dtype)
    array += r   ->  never deferred: np.add(array, r, out=array)

ndarray's operators defer (return NotImplemented, so that Python calls r's reflected
method) when r's class sets `__array_ufunc__ = None`, or, without `__array_ufunc__`,
has an `__array_priority__` above the array's (NumPy's binop_should_defer; in-place
operators never defer). Both modes run the reflected method once on the whole array:
right where NumPy defers, and refused where it does not (fwdad does not model NumPy's
loop over the items of an object array).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.probe import probe

_ABSENT = object()


def defers_to(array: Any, other: Any) -> bool:
    """Whether `array <op> other` (not in place) is other's reflected method, called
    once with the whole array, as NumPy decides for an ndarray `array`."""
    cls = type(other)
    ufunc = getattr(cls, "__array_ufunc__", _ABSENT)
    if ufunc is not _ABSENT:
        return ufunc is None
    if isinstance(other, type(array)):
        return False
    return _priority(other, -1e6) > _priority(array, 0.0)


def _priority(obj: Any, default: float) -> float:
    """obj's __array_priority__ as NumPy reads it (a number), else `default`."""
    try:
        return float(probe(obj, "__array_priority__", default))
    except (TypeError, ValueError):
        return default


def refuse_reflected(array: Any, other: Any, method: str, in_place: bool) -> None:
    """Raise unless NumPy calls other's reflected `method` once with the whole array."""
    if isinstance(array, np.ndarray) and (in_place or not defers_to(array, other)):
        name = type(other).__name__
        what = (f"an in-place operator on a NumPy array with a {name} on the right "
                f"is NumPy's ufunc with out=: it calls {name}.{method} for each item "
                f"of the array, or refuses" if in_place else
                f"NumPy calls {name}.{method} for each item of the array, into an "
                f"object array, since {name} does not set `__array_ufunc__ = None` "
                f"(or an `__array_priority__` above the array's)")
        raise NonDifferentiableError(
            f"a NumPy array <op> an instance of {name}{in_user_code()}: {what}; fwdad "
            f"calls {name}.{method} once with the whole array, so it refuses this. Set "
            f"`__array_ufunc__ = None` in {name} (NumPy then calls {method} with the "
            f"whole array, as fwdad does), or call the method yourself.")
