"""The argument numbers of grad, value_and_grad, jacfwd, jacrev and hessian: checked,
and counted from the end when negative, as Python's indices are.

    check_argnums("grad", f, -1, 2)      ->  (1,)
    check_argnums("grad", f, (0, 1), 2)  ->  (0, 1)
    check_argnums("grad", f, 2, 2)       ->  FwdadError naming f and the argument count
    check_argnums_type("grad", f, 0.5)   ->  FwdadError: an int or a tuple of ints
    positions("grad", f, 0, (), {})      ->  FwdadError: f(x) cannot be called with ()
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, Optional, Tuple

import numpy as np

from fwdad.errors import FwdadError, describe
from fwdad.signatures import check_call


def check_argnums_type(api: str, f: Callable, argnums: Any) -> None:
    """When the transformation is made: argnums is an int or a non-empty tuple (or
    list) of ints; which arguments they name is checked per call.

    Raises:
        FwdadError: anything else (a float, a string, an empty tuple).
    """
    many = isinstance(argnums, (tuple, list))
    if (many and argnums and all(_is_int(i) for i in argnums)) or _is_int(argnums):
        return
    raise FwdadError(
        f"{api}({describe(f)}, argnums={argnums!r}): argnums must be an int or a "
        f"non-empty tuple of ints, the positions of the arguments to differentiate with "
        f"respect to (negative ones count from the end), e.g. argnums=0 or (0, 2).")


def check_argnums(api: str, f: Callable, argnums: Any, count: int) -> Tuple[int, ...]:
    """`argnums` (an int or a sequence of ints) as non-negative positions of the `count`
    arguments of a call of f.

    Raises:
        FwdadError: an argnum is not an int, or names no argument of the call.
    """
    if type(argnums) is int and -count <= argnums < count:
        return (argnums % count,)  # (the common case, before the general checks)
    wrt = (argnums,) if _is_int(argnums) else tuple(argnums) \
        if isinstance(argnums, (tuple, list)) else (argnums,)
    for i in wrt:
        if not _is_int(i) or not -count <= i < count:
            raise FwdadError(f"{api}({describe(f)}, argnums={argnums!r}): argnums must "
                             f"name arguments of the call, {_range(count)}.")
    return tuple(int(i) % count for i in wrt)


def positions(api: str, f: Callable, argnums: Any, args: tuple,
              kwargs: Optional[dict] = None) -> Tuple[int, ...]:
    """check_argnums for a call of f; when f cannot take the call at all (`grad(f)()`),
    that is the error, not the argnums that name no argument of it."""
    try:
        return check_argnums(api, f, argnums, len(args))
    except FwdadError:
        check_call(api, f, args, kwargs or {})
        raise


def _range(count: int) -> str:
    if count == 0:
        return ("which has no positional arguments (keyword arguments are passed to f "
                "as constants): pass the arguments to differentiate by position")
    return (f"which has {count} (0 to {count - 1}, or -{count} to -1 counting from the "
            f"end)")


def _is_int(i: Any) -> bool:
    """Python's and NumPy's ints; not bools (True is no argument number)."""
    return isinstance(i, numbers.Integral) and not isinstance(i, (bool, np.bool_))
