"""Namer: fresh, readable temporaries under a reserved prefix.

Temporaries are named after what they hold when that is known (`_fw_mul1`), so that
normalized and generated code reads like the user's. The fence rejects user names with
the prefix, so a fresh name can never shadow one of theirs.
"""
from __future__ import annotations

import ast
import re
from typing import Dict, Set

RESERVED_PREFIX = "_fw_"


class Namer:
    """Hands out names `_fw_<hint><n>`, unique within one function tree."""

    def __init__(self) -> None:
        self._counts: Dict[str, int] = {}

    def fresh(self, hint: str = "t") -> str:
        if not (hint.isascii() and hint.isidentifier()):  # (the usual case is quicker)
            hint = re.sub(r"\W", "", hint)
        hint = hint[:20] or "t"
        count = self._counts[hint] = self._counts.get(hint, 0) + 1
        return f"{RESERVED_PREFIX}{hint}{count}"

    def name(self, hint: str = "t", ctx: ast.expr_context = None) -> ast.Name:
        """A fresh ast.Name (Load unless ctx says otherwise)."""
        return ast.Name(id=self.fresh(hint), ctx=ctx or ast.Load())


def unused(base: str, taken: Set[str]) -> str:
    """`base`, or `base_2`, `base_3`, ...: the first not in `taken` (which then holds
    it). `taken` starts as a snapshot of every name of the code the new name goes
    into (`names_in`), so that it can be neither the user's nor a Namer's."""
    out, count = base, 1
    while out in taken:
        count += 1
        out = f"{base}_{count}"
    taken.add(out)
    return out


def names_in(tree: ast.AST) -> Set[str]:
    """Every name `tree` mentions: its Names and its parameters."""
    return {n.id if type(n) is ast.Name else n.arg  # type: ignore[attr-defined]
            for n in ast.walk(tree) if type(n) is ast.Name or type(n) is ast.arg}


def is_generated(name: str) -> bool:
    return name.startswith(RESERVED_PREFIX)
