"""The values generated code reaches by name (bound rules, constant Duals, helpers):
each bound once, under a readable name with the reserved prefix. Forward and reverse
transforms both collect theirs in a `Constants`, which become the rule's closure cells.

    k.bind(np.sin, "sin")   ->  Name("_fw_sin")
    k.literal(1.0)          ->  Name("_fw_1_0"), bound to Dual(1.0, 0.0)
"""
from __future__ import annotations

import ast
import re
from typing import Any, Dict, Set

from fwdad.dual import Dual
from fwdad.normalize.names import RESERVED_PREFIX
from fwdad.probe import probe
from fwdad.tangents import zero_tangent

LOAD = ast.Load()


class Constants:
    """The values generated code reaches by name, each bound once, named readably."""

    def __init__(self, taken: Set[str]) -> None:
        self.values: Dict[str, Any] = {}
        self._names: Dict[Any, str] = {}
        self._taken = set(taken)  # names in the code already

    def bind(self, value: Any, hint: str, key: Any = None) -> ast.Name:
        key = ("id", id(value)) if key is None else key
        name = self._names.get(key)
        if name is None:
            base = RESERVED_PREFIX + (re.sub(r"\W", "", hint) or "k")
            name, count = base, 1
            while name in self._taken:
                count += 1
                name = f"{base}_{count}"
            self._taken.add(name)
            self._names[key], self.values[name] = name, value
        return ast.Name(name, LOAD)

    def reserve(self, names: Set[str]) -> None:
        """Keep `names` (locals another stage adds) from being given to constants."""
        self._taken.update(names)

    def literal(self, value: Any) -> ast.Name:
        """A constant Dual for a literal (immutable, so one object serves every use)."""
        key = ("literal", type(value), repr(value))
        name = self._names.get(key)
        if name is not None:
            return ast.Name(name, LOAD)
        return self.bind(Dual(value, zero_tangent(value)), _literal_hint(value), key=key)


def _literal_hint(value: Any) -> str:
    """`1.0` -> `1_0`, `-2` -> `m2`, `'sum'` -> `s_sum`, None -> `None`."""
    if isinstance(value, (bool, type(None))):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value).replace(".", "_").replace("-", "m").replace("+", "")
    if isinstance(value, str) and value.isidentifier() and len(value) <= 20:
        return f"s_{value}"
    return type(value).__name__


def short_name(fn: Any) -> str:
    """A readable name for a bound callable: `np.sin` -> `sin`, `__add__` -> `add`."""
    name = probe(fn, "__name__", None) or type(fn).__name__
    return name.strip("_") or "fn"
