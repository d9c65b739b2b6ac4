"""The plain-Python meaning of the constructs that normalization turns into calls.

Normalized code calls these where the user wrote a display, an unpacking or a call into
C, so that it stays ordinary, runnable Python. Each is a primitive with a registered
frule (rules/containers.py), and its name says what it builds.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Tuple


def build_list(*items: Any) -> list[Any]:
    """`[a, b, *c]` (starred items arrive already expanded)."""
    return list(items)


def build_tuple(*items: Any) -> tuple[Any, ...]:
    """`(a, b)`."""
    return items


def build_set(*items: Any) -> set[Any]:
    """`{a, b}`."""
    return set(items)


def build_dict(*keys_and_values: Any) -> dict[Any, Any]:
    """`{k1: v1, k2: v2}` as build_dict(k1, v1, k2, v2), in Python's order."""
    return dict(zip(keys_and_values[::2], keys_and_values[1::2]))


def build_slice(start: Any, stop: Any, step: Any) -> slice:
    """`a:b:c` inside a subscript."""
    return slice(start, stop, step)


def unpack(value: Iterable[Any], count: int, star: int = -1) -> Tuple[Any, ...]:
    """`a, b = value` (`count` targets); with `star` = i, target i is starred and
    collects the rest as a list, as in `a, *b = value`."""
    items = tuple(value)
    if star < 0:
        if len(items) != count:
            raise ValueError(f"expected {count} values to unpack, got {len(items)}")
        return items
    after = count - star - 1
    if len(items) < count - 1:
        raise ValueError(f"expected at least {count - 1} values to unpack, "
                         f"got {len(items)}")
    rest = list(items[star:len(items) - after])
    return items[:star] + (rest,) + items[len(items) - after:]


def foreigncall(target: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A call of code with no Python source (a builtin, a ufunc, a C extension)."""
    return target(*args, **kwargs)


def truth(value: Any) -> bool:
    """`bool(value)`, the test of an `if`, `while`, `and`, `or`, `not`."""
    return bool(value)
