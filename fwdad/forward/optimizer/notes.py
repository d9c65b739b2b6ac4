"""What the optimizer's rewrite knows of the statements it emits, for the passes after
it (optimizer/cleanup.py, optimizer/moves.py): typed fields kept beside the syntax tree, in
one table per rule, not attributes set on its nodes.

    _fw_dmul1 = dk * x + k * dx      tangent: dropped when nothing reads _fw_dmul1
    _fw_mul1 = k * x                 pure: may move into the one statement reading it
    y, dy = y.primal, y.tangent      split: becomes `y = y.primal` when dy is dead
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple


class Note:
    """What one emitted statement is: every field is unset until the rewrite says."""

    __slots__ = ("tangent", "pure", "split", "reads", "copy_of")

    def __init__(self) -> None:
        self.tangent = False  # it assigns one tangent local, and calls nothing impure
        self.pure = False  # it assigns a template's primal (operators, `math` calls)
        self.split: Optional[Tuple[str, str]] = None  # `y, dy = y.primal, y.tangent`
        self.reads: Optional[List[str]] = None  # the names it reads, when noted as made
        self.copy_of: Optional[str] = None  # `dy = +dx`, a copy only another holder of
        # dx needs (forward/optimizer/inline.py)


class Notes:
    """The Notes of the statements of one rule, by statement (its identity)."""

    __slots__ = ("_of",)

    def __init__(self) -> None:
        self._of: Dict[ast.stmt, Note] = {}

    def get(self, stmt: ast.stmt) -> Optional[Note]:
        return self._of.get(stmt)

    def of(self, stmt: ast.stmt) -> Note:
        """The Note of `stmt`, made now if it has none."""
        note = self._of.get(stmt)
        if note is None:
            note = self._of[stmt] = Note()
        return note

    def tangent(self, stmt: ast.stmt) -> bool:
        note = self._of.get(stmt)
        return note is not None and note.tangent

    def pure(self, stmt: ast.stmt) -> bool:
        note = self._of.get(stmt)
        return note is not None and note.pure
