"""The argument numbers of grad, value_and_grad, jacfwd and hessian: checked, and
counted from the end when negative, as Python's indices are.

    check_argnums("grad", f, -1, 2)      ->  (1,)
    check_argnums("grad", f, (0, 1), 2)  ->  (0, 1)
    check_argnums("grad", f, 2, 2)       ->  FwdadError naming f and the argument count
"""
from __future__ import annotations

from typing import Any, Callable, Tuple

from fwdad.errors import FwdadError, describe


def check_argnums(api: str, f: Callable, argnums: Any, count: int) -> Tuple[int, ...]:
    """`argnums` (an int or a sequence of ints) as non-negative positions of the `count`
    arguments of a call of f.

    Raises:
        FwdadError: an argnum is not an int, or names no argument of the call.
    """
    wrt = (argnums,) if _is_int(argnums) else tuple(argnums) \
        if isinstance(argnums, (tuple, list)) else (argnums,)
    for i in wrt:
        if not _is_int(i) or not -count <= i < count:
            raise FwdadError(
                f"{api}({describe(f)}, argnums={argnums!r}): argnums must name arguments "
                f"of the call, which has {count} (0 to {count - 1}, or -{count} to -1 "
                f"counting from the end).")
    return tuple(i % count for i in wrt)


def _is_int(i: Any) -> bool:
    return isinstance(i, int) and not isinstance(i, bool)
