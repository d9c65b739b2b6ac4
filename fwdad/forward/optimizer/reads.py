"""What the records of an optimized rule read and assign (optimizer/records.py), counted
once for optimizer/cleanup.py and optimizer/moves.py, and kept up to date as they change.

    _fw_dmul1 = _fw_dsin1 * e + s * de     reads _fw_dsin1, e, s, de; assigns _fw_dmul1
A record the rewrite built from a template notes the names it reads (its `reads`); the
others are walked once. Expressions are read directly for the common kinds of node.
"""
from __future__ import annotations

import ast
from collections import Counter
from itertools import chain
from typing import Any, Dict, List, Set, Tuple

from fwdad.astwalk import node_fields
from fwdad.forward.optimizer.records import TANGENT, Assign, Block, Del, Guard, Raw, Record, Split


class Root:
    """The rule's own body, as the first block of the pass."""

    __slots__ = ("body",)

    def __init__(self, body: List[Record]) -> None:
        self.body = body


def reads_of(node: ast.AST, names: List[str], stores: Counter,
             inside: List[ast.stmt]) -> None:
    """Add the names `node` reads to `names` (those it assigns to `stores`); statements
    met below it go to `inside`. The common expressions are read directly."""
    kind = type(node)
    if kind is ast.Name:
        if type(node.ctx) is ast.Load:
            names.append(node.id)
        else:
            stores[node.id] += 1
    elif kind is ast.BinOp:
        reads_of(node.left, names, stores, inside)
        reads_of(node.right, names, stores, inside)
    elif kind is ast.Attribute:
        reads_of(node.value, names, stores, inside)
    elif kind is ast.Call:
        reads_of(node.func, names, stores, inside)
        for arg in node.args:
            reads_of(arg, names, stores, inside)
        for keyword in node.keywords:
            reads_of(keyword.value, names, stores, inside)
    elif kind is ast.UnaryOp:
        reads_of(node.operand, names, stores, inside)
    elif kind is not ast.Constant:
        fields_reads(node, names, stores, inside)


def fields_reads(node: ast.AST, names: List[str], stores: Counter,
                 inside: List[ast.stmt]) -> None:
    for field in node_fields(type(node)):
        value = getattr(node, field, None)
        for item in value if type(value) is list else (value,):
            if isinstance(item, ast.stmt):
                inside.append(item)
            elif isinstance(item, ast.AST):
                reads_of(item, names, stores, inside)


def all_reads(stmt: ast.stmt, names: List[str], stores: Counter) -> None:
    """The names a statement kept as it is reads and assigns, statements inside it
    included."""
    stack = [stmt]
    while stack:
        inside: List[ast.stmt] = []
        fields_reads(stack.pop(), names, stores, inside)
        stack.extend(reversed(inside))


class Reads:
    """What the records of a rule read, each walked once: the names each reads itself
    (`own`, the records of its bodies left out), how often each name is read in the
    rule (`loads`) and assigned (`stores`), and its blocks (`blocks`, each before the
    blocks inside it)."""

    def __init__(self) -> None:
        self.own: Dict[int, list] = {}  # id -> [record, names, has records inside]
        self.loads: Counter = Counter()
        self.stores: Counter = Counter()
        self.blocks: List[Tuple[Any, str]] = []
        self.marked: List[Record] = []  # tangent assignments and splits (first scan)

    def root(self, root: Root, args: ast.arguments) -> None:
        """Record the rule's body, and what its parameters' defaults read."""
        names: List[str] = []
        reads_of(args, names, self.stores, [])
        self.own[id(root)] = [root, names, True]
        self.blocks.append((root, "body"))
        for record in root.body:
            self.scan(record)

    def scan(self, record: Record) -> List[str]:
        """Record `record` and the records inside it; the names `record` reads itself."""
        names: List[str] = []
        entry = self.own[id(record)] = [record, names, False]
        kind = type(record)
        stores = self.stores
        if kind is Assign:
            for target in record.targets:
                stores[target] += 1
            if record.role is TANGENT:
                self.marked.append(record)
            if record.reads is not None:  # known when it was made (optimizer/inline.py)
                entry[1] = record.reads
                return record.reads
            reads_of(record.value, names, stores, [])
        elif kind is Split:
            stores[record.name] += 1
            names.append(record.name)
            if record.dname is not None:
                stores[record.dname] += 1
                names.append(record.name)
                self.marked.append(record)
        elif kind is Block:
            for value in record.fields.values():
                if value is not None:
                    reads_of(value, names, stores, [])
            if record.body or record.orelse:
                entry[2] = True
                self.blocks.extend((record, f) for f in ("body", "orelse")
                                   if getattr(record, f))
                for inner in chain(record.body, record.orelse):
                    self.scan(inner)
        elif kind is Raw:
            opaque = record.opaque
            if opaque is None:  # (break, pass, and the statements optimizer passes make)
                all_reads(record.stmt, names, stores)
            else:
                names.extend(opaque.reads)
                stores.update(opaque.stores)
        elif kind is Guard:
            reads_of(record.test, names, stores, [])
            reads_of(record.away, names, stores, [])
        elif kind is Del:
            for name in record.names:
                stores[name] += 1
        else:  # Expr, Return
            reads_of(record.value, names, stores, [])
        return names

    def count(self) -> None:
        """Count the reads of every record scanned (after the first scan)."""
        self.loads.update(chain.from_iterable(entry[1] for entry in self.own.values()))

    def of(self, record: Record) -> List[str]:
        """The names a record without records inside reads (scanned and counted now if
        it is new)."""
        known = self.own.get(id(record))
        if known is not None and known[0] is record:
            return known[1]  # type: ignore[no-any-return]
        names = self.scan(record)
        for name in names:
            self.loads[name] += 1
        return names

    def below(self, record: Record, cache: Dict[int, tuple]) -> Set[str]:
        """The names `record` reads, the records inside it included (kept in `cache`)."""
        known = cache.get(id(record))
        if known is not None and known[0] is record:
            return known[1]  # type: ignore[no-any-return]
        own = self.own.get(id(record))
        if own is None or own[0] is not record:
            self.scan(record)
            own = self.own[id(record)]
        out = set(own[1])
        if not own[2]:  # no records inside
            return out
        for inner in chain(record.body, record.orelse):  # type: ignore[attr-defined]
            out |= self.below(inner, cache)
        cache[id(record)] = record, out
        return out
