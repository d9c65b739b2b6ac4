"""What the optimizer's rewrite emits: one typed record for each statement of the
optimized rule, which the passes after it (optimizer/cleanup.py, optimizer/moves.py)
read and change, and optimizer/printer.py turns into the syntax tree at the end. The
plain rule's statements are records too (forward/transform/plain_code.py), printed by
the same printer.

    _fw_mul1 = k * x                 Assign(role=PRIMAL): may move into its one reader
    _fw_dmul1 = dk * x + k * dx      Assign(role=TANGENT): dropped when nobody reads it
    y, dy = y.primal, y.tangent      Split: becomes `y = y.primal` when dy is dead
    _fw_f1 = _fw_f(x, y)             Assign(role=CALL), and COPY, UNPACK, MOVE
    if _fw_batched(x): return ...    Guard: the calls the rule does not take go elsewhere
    if t: ...                        Block, with the records of its bodies
    del _fw_t                        Del (cleanup frees temporaries)
Expressions stay syntax trees (templates are written as Python); statements the
optimizer does not know stay as they are, in a Raw record.
"""
from __future__ import annotations

import ast
import copy
from typing import Any, Dict, List, Optional

PRIMAL = "primal"  # a template's primal (operators, `math` calls): it calls nothing impure
TANGENT = "tangent"  # one tangent local, from a template or a copy: calls nothing impure
CALL = "call"  # a call of a rule (its Dual or its primal alone), or of a nondiff function
COPY = "copy"  # `y = x` (with its tangent: `y, dy = x, dx`), or a Dual for a boxed local
UNPACK = "unpack"  # `a, b = _fw_unpack(t, 2)`
MOVE = "move"  # a template's new value kept aside while its tangent reads the old one
# (`_fw_y_new = y * 2.0`), and put back (`y = _fw_y_new`)


class Record:
    """One statement of the optimized rule; `lineno` is the user's line it comes from."""

    __slots__ = ("lineno",)

    # (each subclass sets `lineno` itself instead of calling this: a call fewer for each
    # statement of every rule)
    def __init__(self) -> None:
        self.lineno: Optional[int] = None


class Assign(Record):
    """`target = value`, or `a, b = value` for an UNPACK or several targets; `role` says
    what it assigns (above). `reads` are the names `value` reads when the rewrite knew
    them as it built it (cleanup counts them from there instead of walking the
    expression); `copy_of` names the tangent a TANGENT copies (`dy = +dx`), which only
    another holder of it needs."""

    __slots__ = ("targets", "value", "role", "unpack", "reads", "copy_of")

    def __init__(self, targets: List[str], value: ast.expr, role: str,
                 reads: Optional[List[str]] = None) -> None:
        self.lineno = None
        self.targets, self.value, self.role = targets, value, role
        self.unpack = role is UNPACK or len(targets) > 1  # the targets as a tuple
        self.reads = reads
        self.copy_of: Optional[str] = None

    @property
    def simple(self) -> bool:
        """A template's primal or a tangent, with one target: a value that may move."""
        return (self.role is PRIMAL or self.role is TANGENT) and not self.unpack


class Split(Record):
    """`name, dname = name.primal, name.tangent`, or `name = name.primal` when `dname`
    is None (a plain local, or a split whose tangent nobody reads)."""

    __slots__ = ("name", "dname")

    def __init__(self, name: str, dname: Optional[str]) -> None:
        self.lineno = None
        self.name, self.dname = name, dname


class Expr(Record):
    """A call for its effect alone."""

    __slots__ = ("value",)

    def __init__(self, value: ast.expr) -> None:
        self.lineno = None
        self.value = value


class Return(Record):
    __slots__ = ("value",)

    def __init__(self, value: ast.expr) -> None:
        self.lineno = None
        self.value = value


class Block(Record):
    """A statement of kind `kind` (ast.If, While, For, Assert, Raise) with its
    expression `fields` (test, target, iter, msg, exc, cause) and the records of its
    bodies. A `try` is a Block of kind ast.Try whose orelse holds a Block for each of
    its parts: ast.ExceptHandler (fields type, and name as a stored Name), TryElse,
    TryFinally. A `with` is a Block of kind ast.With whose fields are its one item's
    (context_expr, optional_vars)."""

    __slots__ = ("kind", "fields", "body", "orelse")

    def __init__(self, kind: type, fields: Dict[str, Any], body: List[Record],
                 orelse: List[Record]) -> None:
        self.lineno = None
        self.kind, self.fields, self.body, self.orelse = kind, fields, body, orelse


class TryElse:
    """The kind of the Block of a try's `else:` (in the try's Block, after handlers)."""


class TryFinally:
    """The kind of the Block of a try's `finally:`."""


def try_part(clause: str, kind: Optional[ast.expr], caught: Optional[str],
             body: List[Record]) -> Block:
    """The Block of a part of a try (forward/optimizer/lines.py's `part` lines): an
    except clause ("except", its type and the name it binds), "else" or "finally"."""
    if clause == "except":
        name = None if caught is None else ast.Name(caught, ast.Store())
        return Block(ast.ExceptHandler, {"type": kind, "name": name}, body, [])
    return Block(TryElse if clause == "else" else TryFinally, {}, body, [])


def with_block(header: ast.With, body: List[Record]) -> Block:
    """The Block of `with` whose header (its item, kept as the transform made it) is
    the statement `header` (forward/transform/control.py's s_With) and whose body's
    records are `body`."""
    item = copy.deepcopy(header.items[0])
    return Block(ast.With, {"context_expr": item.context_expr,
                            "optional_vars": item.optional_vars}, body, [])


class Guard(Record):
    """`if test: return away`: on entry, the calls the optimized rule does not take go
    to `away` (forward/optimizer/guard.py)."""

    __slots__ = ("test", "away")

    def __init__(self, test: ast.expr, away: ast.expr) -> None:
        self.lineno = None
        self.test, self.away = test, away


class Del(Record):
    """`del a, b`: temporaries freed after their last use."""

    __slots__ = ("names",)

    def __init__(self, names: List[str]) -> None:
        self.lineno = None
        self.names = names


class Raw(Record):
    """A statement the optimizer keeps as it is (unknown code, break, pass), and what
    it does with names when its Line said (optimizer/opaque.py)."""

    __slots__ = ("stmt", "opaque")

    def __init__(self, stmt: ast.stmt, opaque: Any = None) -> None:
        self.lineno = None
        self.stmt = stmt
        self.opaque = opaque  # an Opaque, or None: read the statement


def located(record: Record, old: ast.AST) -> Record:
    """`record` with the user's line of `old`, if it has one."""
    lineno = old.__dict__.get("lineno")
    if lineno is not None:
        record.lineno = lineno
    return record

