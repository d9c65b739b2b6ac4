"""The tangents of values read live from a global or closure (core/duals.read_global).

Each read of a global makes a new zero tangent, so a derivative written into one
(`STORE.append(w * x)`, `BOX.v = w[0]`, `G[0][1] = w[0]`, read back later) would be lost:
the next read makes zeros again. Writing a zero tangent loses nothing (a value that does
not depend on the inputs: a log of plain numbers); writing any other is refused, naming
the line.

    ReadOnlyList / ReadOnlyDict    lists and dicts whose writes check what goes in
    ReadOnlyTangent                an instance's fields, whose writes check the same
    (arrays)                       not writeable: the array rules refuse the write
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from fwdad.errors import FwdadError, in_user_code
from fwdad.tangents import NoTangent, Tangent, rebuild


def is_zero(tangent: Any) -> bool:
    """Whether a tangent is zero in every leaf (NoTangent is). A tangent linearize
    records has no value yet, and so is taken for one that may not be."""
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    if tangent is NoTangent:
        return True
    if type(tangent) is Linear:
        return False
    if isinstance(tangent, Tangent):
        return all(map(is_zero, vars(tangent).values()))
    if isinstance(tangent, (tuple, list)):
        return all(map(is_zero, tangent))
    if isinstance(tangent, dict):
        return all(map(is_zero, tangent.values()))
    return not np.any(tangent)


def refuse_unless_zero(tangents: Iterable[Any], stored: bool = False) -> None:
    """Refuse a value with a derivative written into a global's container or field, or
    (`stored`) assigned to a variable declared global or nonlocal."""
    if all(map(is_zero, tangents)):
        return
    line = in_user_code()
    recorded = any(_recorded(t) for t in tangents)
    into = ("assigned to a variable declared global or nonlocal (outside the "
            "differentiated code)" if stored else
            "written into a list, dict or object read from a global or closure variable")
    raise FwdadError(
        f"{_RECORDED if recorded else 'a value that depends on the inputs'} is {into}"
        f"{line}: fwdad reads such a value afresh (with a zero "
        f"derivative) each time, so its derivative would be lost when it is read again. "
        f"Pass the value to the function as an argument, or return it, instead of "
        f"keeping it in a global.")


_RECORDED = ("a value whose derivative linearize records (before any tangent is given, "
             "so it cannot tell a zero one)")


def _recorded(tangent: Any) -> bool:
    """Whether some leaf of the tangent is one linearize records."""
    from fwdad.recording import Linear
    if isinstance(tangent, Tangent):
        return any(map(_recorded, vars(tangent).values()))
    if isinstance(tangent, (tuple, list)):
        return any(map(_recorded, tangent))
    if isinstance(tangent, dict):
        return any(map(_recorded, tangent.values()))
    return type(tangent) is Linear


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


class ReadOnlyTangent(Tangent):
    """A global instance's tangent: writes of non-zero field tangents are refused."""

    def __setattr__(self, name: str, item: Any) -> None:
        refuse_unless_zero((item,))
        super().__setattr__(name, item)


def read_only(tangent: Any) -> Any:
    """The zero tangent of a global (fresh from zero_tangent), made read-only at every
    depth: its arrays unwriteable, its lists, dicts and instances' fields checked."""
    return _read_only(tangent, {})


def _read_only(tangent: Any, seen: dict[int, Any]) -> Any:
    kind = type(tangent)
    if kind is np.ndarray:
        tangent.flags.writeable = False
        return tangent
    if id(tangent) in seen:  # an instance reachable twice, or from itself
        return seen[id(tangent)]
    if kind is list:
        return ReadOnlyList(_read_only(t, seen) for t in tangent)
    if kind is dict:
        return ReadOnlyDict((k, _read_only(t, seen)) for k, t in tangent.items())
    if isinstance(tangent, tuple):
        return rebuild(tangent, [_read_only(t, seen) for t in tangent])
    if kind is Tangent:
        seen[id(tangent)] = tangent
        fields = vars(tangent)
        for name, field in fields.items():
            fields[name] = _read_only(field, seen)
        tangent.__class__ = ReadOnlyTangent
    return tangent
