"""The tangents of lists and dicts read live from a global or closure (core/duals.const).

Each read of a global makes a new zero tangent, so a derivative written into one
(`STORE.append(w * x)`, read back later as `STORE[0]`) would be lost: the next read
makes zeros again. Writing a zero tangent loses nothing (a value that does not depend
on the inputs: a log of plain numbers); writing any other is refused, naming the line.

    ReadOnlyList / ReadOnlyDict    lists and dicts whose writes check what goes in
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from fwdad.errors import FwdadError, current_user_location
from fwdad.tangents import NoTangent, Tangent


def is_zero(tangent: Any) -> bool:
    """Whether a tangent is zero in every leaf (NoTangent is)."""
    if tangent is NoTangent:
        return True
    if isinstance(tangent, Tangent):
        return all(map(is_zero, vars(tangent).values()))
    if isinstance(tangent, (tuple, list)):
        return all(map(is_zero, tangent))
    if isinstance(tangent, dict):
        return all(map(is_zero, tangent.values()))
    return not np.any(tangent)


def refuse_unless_zero(tangents: Iterable[Any]) -> None:
    if all(map(is_zero, tangents)):
        return
    line = current_user_location()
    raise FwdadError(
        f"a value that depends on the inputs is written into a list or dict read from a "
        f"global or closure variable{' at ' + line if line else ''}: fwdad reads such a "
        f"container afresh (with a zero derivative) each time, so the derivative written "
        f"into it would be lost when it is read again. Pass the container to the function "
        f"as an argument, or return the value, instead of keeping it in a global.")


class ReadOnlyList(list):
    """A constant list's tangent: writes of non-zero tangents are refused."""

    def append(self, item: Any) -> None:
        refuse_unless_zero((item,))
        super().append(item)

    def insert(self, index: Any, item: Any) -> None:
        refuse_unless_zero((item,))
        super().insert(index, item)

    def extend(self, items: Iterable[Any]) -> None:
        items = list(items)
        refuse_unless_zero(items)
        super().extend(items)

    def __iadd__(self, items: Iterable[Any]) -> "ReadOnlyList":  # type: ignore[override]
        self.extend(items)
        return self

    def __setitem__(self, index: Any, item: Any) -> None:
        refuse_unless_zero(item if isinstance(index, slice) else (item,))
        super().__setitem__(index, item)


class ReadOnlyDict(dict):
    """A constant dict's tangent: writes of non-zero tangents are refused."""

    def __setitem__(self, key: Any, item: Any) -> None:
        refuse_unless_zero((item,))
        super().__setitem__(key, item)

    def setdefault(self, key: Any, item: Any = None) -> Any:
        if key not in self:
            refuse_unless_zero((item,))
        return super().setdefault(key, item)

    def update(self, *args: Any, **kwargs: Any) -> None:
        new = dict(*args, **kwargs)
        refuse_unless_zero(new.values())
        super().update(new)


def read_only(tangent: Any) -> Any:
    """The tangent of a global, with its lists and dicts (at any depth, through lists,
    dicts and tuples) read-only, and a top-level array too. Instances' tangents and the
    arrays inside containers stay as `const` leaves them: values bound outside the
    differentiated code and read back through the same Dual pass through them."""
    kind = type(tangent)
    if kind is np.ndarray:
        tangent.flags.writeable = False
        return tangent
    return _read_only(tangent)


def _read_only(tangent: Any) -> Any:
    kind = type(tangent)
    if kind is list:
        return ReadOnlyList(_read_only(t) for t in tangent)
    if kind is dict:
        return ReadOnlyDict((k, _read_only(t)) for k, t in tangent.items())
    if kind is tuple:
        return tuple(_read_only(t) for t in tangent)
    return tangent
