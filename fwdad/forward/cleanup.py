"""Clean an optimized rule: drop tangent work nobody reads, free dead temporaries.

After this pass every tangent local the optimizer assigned is read somewhere, and each
temporary assigned at the top level of the rule is deleted after its last use there, so
that large arrays do not stay alive until the rule returns (as they would not in the
user's nested expression either).
"""
from __future__ import annotations

import ast
from collections import Counter
from typing import List, Set

from fwdad.normalize.names import RESERVED_PREFIX


def cleanup(fn: ast.FunctionDef) -> ast.FunctionDef:
    while _drop_dead_tangents(fn):
        pass
    loads = Counter(n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load))
    stores = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    for node in [n for n in ast.walk(fn) if isinstance(n, (ast.FunctionDef, ast.For,
                                                            ast.While, ast.If))]:
        for block in ("body", "orelse"):
            if getattr(node, block, None):
                setattr(node, block, _substitute(getattr(node, block), loads, stores))
    fn.body = _free_temporaries(fn.body)
    return fn


def _substitute(body: List[ast.stmt], loads: Counter, stores: Set[str]) -> List[ast.stmt]:
    """Move a tangent temporary read once into the statement that reads it, when that
    keeps every temporary alive no longer than it was: `_fw_dsin1 = cos(x) * dx` then
    `_fw_dmul1 = _fw_dsin1 * e + s * de` becomes `_fw_dmul1 = cos(x) * dx * e + ...`.
    NumPy then reuses the temporaries of one expression, so fewer arrays are alive."""
    reads = [_loads(stmt) for stmt in body]
    out = list(body)
    for i, stmt in enumerate(out):
        if stmt is None or not getattr(stmt, "fw_tangent", False):
            continue
        name = stmt.targets[0].id
        if not name.startswith(RESERVED_PREFIX) or loads[name] != 1:
            continue
        j = next((k for k in range(i + 1, len(out)) if name in reads[k]), None)
        if j is None or not _can_move(out, reads, i, j, stores):
            continue
        out[j] = _Replace(name, stmt.value).visit(out[j])
        reads[j] = (reads[j] - {name}) | reads[i]
        out[i], reads[i] = None, set()
    return [s for s in out if s is not None]


def _can_move(stmts: list, reads: list, i: int, j: int, stores: Set[str]) -> bool:
    """Only simple generated statements between, none rebinding what moves; the
    temporaries the expression reads are read at j or later anyway."""
    use = stmts[j]
    if not (isinstance(use, ast.Assign) and (getattr(use, "fw_tangent", False)
                                             or getattr(use, "fw_pure", False))):
        return False
    moved = reads[i]
    for stmt in stmts[i + 1:j]:
        if stmt is None:
            continue
        if not (getattr(stmt, "fw_tangent", False) or getattr(stmt, "fw_pure", False)):
            return False
        if {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)} \
                & moved:
            return False
    later = set().union(*(r for r in reads[j:]))
    return all(n in later for n in moved if n.startswith(RESERVED_PREFIX) and n in stores)


class _Replace(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.value if node.id == self.name else node


def _drop_dead_tangents(fn: ast.FunctionDef) -> bool:
    """One round of removing `dy = ...` whose dy is never read; True if any went."""
    loads = Counter(n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load))
    changed = False
    for node in ast.walk(fn):
        for block in ("body", "orelse"):
            stmts = getattr(node, block, None)
            if not isinstance(stmts, list) or not stmts or not isinstance(stmts[0], ast.stmt):
                continue
            kept = []
            for stmt in stmts:
                new = _without_dead_tangent(stmt, loads)
                changed |= new is not stmt
                if new is not None:
                    kept.append(new)
            setattr(node, block, kept or [ast.copy_location(ast.Pass(), stmts[0])])
    return changed


def _without_dead_tangent(stmt: ast.stmt, loads: Counter):
    if getattr(stmt, "fw_tangent", False) and loads[stmt.targets[0].id] == 0:
        return None
    split = getattr(stmt, "fw_split", None)
    if split is not None and loads[split[1]] == 0:
        source = stmt.value.elts[0]
        new = ast.Assign(targets=[ast.Name(id=split[0], ctx=ast.Store())], value=source)
        return ast.copy_location(new, stmt)
    return stmt


def _free_temporaries(body: List[ast.stmt]) -> List[ast.stmt]:
    """`del _fw_t` after the top-level statement that reads a temporary last."""
    reads = [_loads(stmt) for stmt in body]
    assigned: Set[str] = set()
    last = {}
    for i, names in enumerate(reads):
        for name in names:
            last[name] = i
    out: List[ast.stmt] = []
    for i, stmt in enumerate(body):
        out.append(stmt)
        dead = sorted(n for n in reads[i] if last[n] == i and n in assigned)
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                assigned.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name)
                                and n.id.startswith(RESERVED_PREFIX))
        if dead and not isinstance(stmt, (ast.Return, ast.Raise)):
            gone = ast.Delete(targets=[ast.Name(id=n, ctx=ast.Del()) for n in dead])
            out.append(ast.copy_location(gone, stmt))
    return out


def _loads(stmt: ast.stmt) -> Set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}
