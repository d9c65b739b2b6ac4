"""What a statement the optimizer keeps as it is does with names (a nested def, a
with's header, an assignment to a global, `del`, `import`, an except clause's
`e = _fw_const(e)`): read once, when the transform makes its Line
(forward/optimizer/lines.py), so that no analysis walks the statement.

    def g(v):                         mentioned  ('g', 'v', 'b', 'x', '_fw_f', ...): every
        b = _fw_f(x)                  loads      Counter({'x': 1, '_fw_f': 1, ...})
        ...                           stores     Counter({'b': 1, ...})
                                      bound      {'g'}: the names it binds here
                                      scoped     it declares a name global or nonlocal
    g = _fw_f(x)                      assigns    ('g',): the names it surely binds (an
                                                 assignment's targets; () otherwise)
A nested def's own locals are mentioned but not bound here, as Python scopes them.
"""
from __future__ import annotations

import ast
from collections import Counter
from typing import List, Set, Tuple

from fwdad import astwalk
from fwdad.astwalk import child_nodes


class Opaque:
    """The names a kept statement mentions, reads, assigns and binds."""

    __slots__ = ("mentioned", "loads", "reads", "stores", "bound", "scoped", "assigns")

    def __init__(self, stmt: ast.stmt) -> None:
        nodes = astwalk.walk(stmt)
        names = [n for n in nodes if type(n) is ast.Name]
        # every name, in walk order, once for each time it appears
        self.mentioned: Tuple[str, ...] = tuple(n.id for n in names)
        # the names it reads, once for each read (what optimizer/reads.py's all_reads
        # gives, in another order, which nothing reads)
        self.reads: Tuple[str, ...] = tuple(n.id for n in names if type(n.ctx) is ast.Load)
        self.loads: Counter = Counter(self.reads)
        self.stores: Counter = Counter(n.id for n in names if type(n.ctx) is not ast.Load)
        self.bound: Set[str] = bound_below([stmt], set())
        self.scoped = any(type(n) is ast.Global or type(n) is ast.Nonlocal for n in nodes)
        # (a try or a loop may bind its names or not: only an assignment surely does)
        self.assigns: Tuple[str, ...] = tuple(
            n.id for target in stmt.targets for n in astwalk.names(target)
            if type(n.ctx) is ast.Store) if type(stmt) is ast.Assign else ()


def bound_below(nodes: List[ast.AST], names: Set[str]) -> Set[str]:
    """`names` with every name the statements `nodes` assign (nested defs' own locals
    excluded)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        if isinstance(node, ast.arg):
            names.add(node.arg)
        if isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        stack.extend(child_nodes(node))
    return names
