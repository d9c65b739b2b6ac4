"""Clean an optimized rule: drop tangent work nobody reads, move single-use tangents
into their use, free dead temporaries.

After this pass every tangent local the optimizer assigned is read somewhere, and each
temporary assigned at the top level of the rule is deleted after its last use there, so
that large arrays do not stay alive until the rule returns (as they would not in the
user's nested expression either). The tree is walked once; counts are then kept up to
date as statements change, so the pass stays linear in the size of the rule.
"""
from __future__ import annotations

import ast
import copy
from collections import Counter
from itertools import chain
from typing import Dict, List, Optional, Set, Tuple

from fwdad import astwalk
from fwdad.astwalk import node_fields
from fwdad.forward.optimizer.moves import substitute
from fwdad.forward.optimizer.notes import Notes
from fwdad.forward.transform.astbuild import DEL, STORE, locate
from fwdad.normalize.names import RESERVED_PREFIX

_BLOCKS = (ast.FunctionDef, ast.For, ast.While, ast.If)


def cleanup(fn: ast.FunctionDef, small: Set[str] = frozenset(),
            notes: Optional[Notes] = None) -> ast.FunctionDef:
    """Clean `fn`, whose statements the optimizer noted in `notes` (forward/optimizer/notes.py);
    temporaries in `small` that are bound once hold one number and get no `del` (it
    would free no array)."""
    reads = _Reads(notes if notes is not None else Notes())
    reads.scan(fn)
    reads.count()
    loads = reads.loads
    _drop_needless_copies(reads)
    if any(_without_dead_tangent(stmt, loads, reads.notes) is not stmt
           for stmt in reads.marked):
        while _drop_dead_tangents(reads.blocks, reads):
            pass
    small = {name for name in small if reads.stores[name] == 1}
    top, below = None, {}
    for node, field in reads.blocks:
        stmts, sets = substitute(getattr(node, field), reads, below, small)
        setattr(node, field, stmts)
        top = sets if node is fn and field == "body" else top
    fn.body = _free_temporaries(fn.body, top, small)
    return fn


def _reads_of(node: ast.AST, names: List[str], stores: Counter,
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
        _reads_of(node.left, names, stores, inside)
        _reads_of(node.right, names, stores, inside)
    elif kind is ast.Attribute:
        _reads_of(node.value, names, stores, inside)
    elif kind is ast.Call:
        _reads_of(node.func, names, stores, inside)
        for arg in node.args:
            _reads_of(arg, names, stores, inside)
        for keyword in node.keywords:
            _reads_of(keyword.value, names, stores, inside)
    elif kind is ast.UnaryOp:
        _reads_of(node.operand, names, stores, inside)
    elif kind is not ast.Constant:
        _fields_reads(node, names, stores, inside)


def _fields_reads(node: ast.AST, names: List[str], stores: Counter,
                  inside: List[ast.stmt]) -> None:
    for field in node_fields(type(node)):
        value = getattr(node, field, None)
        for item in value if type(value) is list else (value,):
            if isinstance(item, ast.stmt):
                inside.append(item)
            elif isinstance(item, ast.AST):
                _reads_of(item, names, stores, inside)


def _block(stmt: ast.stmt, blocks: List[Tuple[ast.AST, str]]) -> None:
    if type(stmt) in _BLOCKS:
        blocks.extend((stmt, f) for f in ("body", "orelse") if getattr(stmt, f, None))


class _Reads:
    """What the statements of a rule read, each statement walked once: the names each
    reads itself (`own`, nested statements left out), how often each name is read in
    the rule (`loads`) and assigned (`stores`), and its blocks (`blocks`, each before
    the blocks inside it)."""

    def __init__(self, notes: Notes) -> None:
        self.notes = notes  # what the optimizer noted of the statements it made
        self.own: Dict[int, list] = {}  # id -> [statement, names, has statements inside]
        self.loads: Counter = Counter()
        self.stores: Counter = Counter()
        self.blocks: List[Tuple[ast.AST, str]] = []
        self.marked: List[ast.stmt] = []  # tangent assignments and splits (first scan)

    def scan(self, stmt: ast.stmt) -> List[str]:
        """Record `stmt` and the statements inside it; the names `stmt` reads itself."""
        note = self.notes.get(stmt)
        known = None if note is None else note.reads
        if known is not None:  # noted when it was made (forward/optimizer/inline.py)
            self.own[id(stmt)] = [stmt, known, False]
            self.stores[stmt.targets[0].id] += 1
            if note.tangent:
                self.marked.append(stmt)
            return known
        names: List[str] = []
        inside: List[ast.stmt] = []
        entry = self.own[id(stmt)] = [stmt, names, False]
        kind = type(stmt)
        if kind is ast.Assign:
            if note is not None and (note.tangent or note.split is not None):
                self.marked.append(stmt)
            targets = stmt.targets
            if len(targets) == 1 and type(targets[0]) is ast.Name:
                self.stores[targets[0].id] += 1
            else:
                for target in targets:
                    _reads_of(target, names, self.stores, inside)
            _reads_of(stmt.value, names, self.stores, inside)
            if not inside:
                return names
        else:
            if kind in _BLOCKS:
                _block(stmt, self.blocks)
            _fields_reads(stmt, names, self.stores, inside)
        entry[2] = bool(inside)
        for inner in inside:
            self.scan(inner)
        return names

    def count(self) -> None:
        """Count the reads of every statement scanned (after the first scan)."""
        self.loads.update(chain.from_iterable(entry[1] for entry in self.own.values()))

    def of(self, stmt: ast.stmt) -> List[str]:
        """The names a statement without statements inside reads (scanned and counted
        now if it is new)."""
        known = self.own.get(id(stmt))
        if known is not None and known[0] is stmt:
            return known[1]
        names = self.scan(stmt)
        for name in names:
            self.loads[name] += 1
        return names

    def below(self, stmt: ast.stmt, cache: Dict[int, tuple]) -> Set[str]:
        """The names `stmt` reads, nested statements included (kept in `cache`)."""
        known = cache.get(id(stmt))
        if known is not None and known[0] is stmt:
            return known[1]
        own = self.own.get(id(stmt))
        if own is None or own[0] is not stmt:
            self.scan(stmt)
            own = self.own[id(stmt)]
        out = set(own[1])
        if not own[2]:  # no statements inside
            return out
        for name in node_fields(type(stmt)):
            value = getattr(stmt, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.stmt):
                        out |= self.below(item, cache)
                    elif type(item) is ast.ExceptHandler:
                        for inner in item.body:
                            out |= self.below(inner, cache)
        cache[id(stmt)] = stmt, out
        return out


def _drop_needless_copies(reads: "_Reads") -> None:
    """`dy = +_fw_dx` -> `dy = _fw_dx` where nothing else reads or assigns `_fw_dx`: the
    optimizer copies a tangent that a template passes through, which only another
    holder of it needs (forward/optimizer/inline.py marks the copies of new tangents)."""
    loads, stores, notes = reads.loads, reads.stores, reads.notes
    for stmt in reads.marked:
        name = notes.of(stmt).copy_of
        if name is not None and loads[name] == 1 and stores[name] == 1:
            stmt.value = stmt.value.operand


# ---- dead tangents ------------------------------------------------------------------
def _drop_dead_tangents(blocks: List[Tuple[ast.AST, str]], reads: _Reads) -> bool:
    """One round of removing `dy = ...` whose dy is never read; True if any went."""
    changed, loads = False, reads.loads
    for node, field in blocks:
        stmts, kept = getattr(node, field), []
        for stmt in stmts:
            new = _without_dead_tangent(stmt, loads, reads.notes)
            if new is not stmt:
                changed = True
                for name in reads.of(stmt):
                    loads[name] -= 1
                if new is not None:
                    reads.of(new)  # scanning it counts its reads
            if new is not None:
                kept.append(new)
        setattr(node, field, kept or [locate(ast.Pass(), stmts[0])])
    return changed


def _without_dead_tangent(stmt: ast.stmt, loads: Counter, notes: Notes):
    """None for a tangent assignment nobody reads, `y = y.primal` for a split whose
    tangent nobody reads, else `stmt`."""
    note = notes.get(stmt)
    if note is None:
        return stmt
    if note.tangent and loads[stmt.targets[0].id] <= 0:
        return None
    split = note.split
    if split is not None and loads[split[1]] <= 0:
        source = stmt.value.elts[0]
        new = ast.Assign([ast.Name(split[0], STORE)], source)
        return locate(new, stmt)
    return stmt


# ---- freeing temporaries ----------------------------------------------------------
def free_temporaries(fn: ast.FunctionDef) -> ast.FunctionDef:
    """Only the last step of `cleanup`, for a rule that is not optimized (the rule of a
    rule, fwdad/forward/nested/levels.py): `del` each top-level temporary after its last use.
    A dead temporary that still held a value read from an argument (`x.tangent`) would
    count as one more holder of that array, and keep it from being widened
    (fwdad/rules/widening.py)."""
    reads, below = _Reads(Notes()), {}
    reads.scan(fn)
    out = copy.copy(fn)  # (the statements are shared, not changed)
    out.body = _free_temporaries(fn.body, [reads.below(s, below) for s in fn.body], set())
    return out


def _free_temporaries(body: List[ast.stmt], reads: List[Set[str]],
                      small: Set[str]) -> List[ast.stmt]:
    """`del _fw_t` after the top-level statement that reads a temporary last (unless
    it is `small`)."""
    assigned: Set[str] = set()
    last = {name: i for i, names in enumerate(reads) for name in names}
    out: List[ast.stmt] = []
    for i, stmt in enumerate(body):
        out.append(stmt)
        dead = [n for n in reads[i] if n in assigned and last[n] == i and n not in small]
        if type(stmt) is ast.Assign:
            for target in stmt.targets:
                if type(target) is ast.Name:
                    if target.id.startswith(RESERVED_PREFIX):
                        assigned.add(target.id)
                else:
                    assigned.update(n.id for n in astwalk.names(target)
                                    if n.id.startswith(RESERVED_PREFIX))
        if dead and not isinstance(stmt, (ast.Return, ast.Raise)):
            dead.sort()
            out.append(locate(ast.Delete([ast.Name(n, DEL) for n in dead]), stmt))
    return out
