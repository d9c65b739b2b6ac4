"""Move temporaries read once into the statement that reads them (for optimizer/cleanup.py,
on the records of optimizer/records.py).

    _fw_dsin1 = cos(x) * dx                 ->  _fw_dmul1 = cos(x) * dx * e + s * de
    _fw_dmul1 = _fw_dsin1 * e + s * de
    _fw_matmul1 = w @ x                     ->  _fw_tanh1 = np_tanh(w @ x)
    _fw_tanh1 = np_tanh(_fw_matmul1)
A move never keeps an array alive longer than it was, nor changes the order in which
the operations of the rule run, except tangent work, which templates allow to run
before or after the primal.
"""
from __future__ import annotations

import ast
from collections import Counter
from typing import Dict, List, Set

from fwdad.astwalk import node_fields
from fwdad.forward.optimizer.reads import Reads
from fwdad.forward.optimizer.records import PRIMAL, TANGENT, Assign, Record
from fwdad.normalize.names import RESERVED_PREFIX


def substitute(body: List[Record], table: Reads, below: Dict[int, tuple],
                small: Set[str]) -> tuple:
    """Move a tangent temporary read once into the statement that reads it, when that
    keeps every temporary alive no longer than it was (but those `small`, which hold
    one number): `_fw_dsin1 = cos(x) * dx` then
    `_fw_dmul1 = _fw_dsin1 * e + s * de` becomes `_fw_dmul1 = cos(x) * dx * e + ...`.
    NumPy then reuses the temporaries of one expression, so fewer arrays are alive.
    A primal temporary read once moves only into the statement right after it (so
    that every operation still runs in the same order). Returns the new records and
    the names each reads."""
    loads = table.loads
    reads = [_below(record, table, below) for record in body]
    tangents, primals = [], []
    for i, record in enumerate(body):
        if type(record) is Assign and record.simple:
            name = record.targets[0]
            if loads[name] == 1 and name.startswith(RESERVED_PREFIX):
                (tangents if record.role is TANGENT else primals).append((i, name))
    if not tangents and not primals:
        return body, reads
    moves = _Moves(body, reads, table, below, small, {n for _, n in tangents})
    for i, name in tangents:
        moves.move(i, name, False)
    for i, name in primals:
        moves.move(i, name, True)
    out = moves.out
    kept = [k for k, s in enumerate(out) if s is not None]
    return [out[k] for k in kept], [reads[k] for k in kept]


class _Moves:
    """The records of one block as temporaries move into their one use."""

    def __init__(self, body: List[Record], reads: List[Set[str]], table: Reads,
                 below: Dict[int, tuple], small: Set[str], movable: Set[str]) -> None:
        self.out: List = list(body)
        self.reads, self.table, self.below, self.small = reads, table, below, small
        self.movable = movable
        self.first: Dict[str, List[int]] = {}  # where each movable temporary is read
        for k, names in enumerate(reads):
            for name in names & movable if len(names) > len(movable) else movable & names:
                self.first.setdefault(name, []).append(k)
        self.last = {name: k for k, names in enumerate(reads) for name in names}
        self.simple = [type(record) is Assign and record.simple for record in body]
        self.barrier = _barriers(self.simple)
        # what each simple record assigns (None once it has moved, or if not simple)
        self.targets = [record.targets[0] if simple else None
                        for record, simple in zip(body, self.simple)]

    def move(self, i: int, name: str, adjacent: bool) -> None:
        """Move statement i into the one that reads `name` if it may (with `adjacent`,
        only if nothing is left between them)."""
        out, reads = self.out, self.reads
        if adjacent:
            j = i + 1
            while j < len(out) and out[j] is None:
                j += 1
            if j == len(out) or name not in reads[j] or not self.simple[j] or \
                    out[j].role is not PRIMAL or not _one_operation(out[j].value):
                return
        else:
            j = None
            for k in self.first.get(name, ()):  # the first statement after i reading it
                if k > i and (j is None or k < j):
                    j = k
            if j is None or not self.simple[j] or self.barrier[i] < j:
                return
        if not _can_move(self.targets, reads, self.last, i, j, self.table.stores,
                         self.small):
            return
        out[j].value = _put(out[j].value, name, out[i].value)
        for moved in reads[i]:
            self.last[moved] = max(self.last.get(moved, j), j)
            if moved in self.movable:
                self.first.setdefault(moved, []).append(j)
        reads[j] = (reads[j] - {name}) | reads[i]
        self.below[id(out[j])] = out[j], reads[j]
        out[i], reads[i], self.targets[i] = None, None, None


def _one_operation(node: ast.expr) -> bool:
    """One operator or call on names and literals: a value put in place of one of them
    runs right before that operation, as it did before."""
    kind = type(node)
    if kind is ast.BinOp:
        return _atomic(node.left) and _atomic(node.right)
    if kind is ast.UnaryOp:
        return _atomic(node.operand)
    if kind is ast.Call:
        return _atomic(node.func) and all(map(_atomic, node.args)) and \
            all(_atomic(k.value) for k in node.keywords)
    return False


def _atomic(node: ast.expr) -> bool:
    """A name, a literal, or a name's attribute (`x.primal`): reading it runs nothing."""
    kind = type(node)
    if kind is ast.Attribute:
        return type(node.value) is ast.Name
    if kind is ast.UnaryOp:  # a negative literal
        return type(node.operand) is ast.Constant
    return kind is ast.Name or kind is ast.Constant


def _below(stmt: Record, table: Reads, below: Dict[int, tuple]) -> Set[str]:
    """table.below, quicker for a record without records inside."""
    known = table.own.get(id(stmt))
    if known is not None and known[0] is stmt and not known[2]:
        return set(known[1])
    return table.below(stmt, below)


def _barriers(simple: List[bool]) -> List[int]:
    """For each statement, the index of the first statement after it that is not
    simple (or the length of the block)."""
    out, after = [0] * len(simple), len(simple)
    for k in range(len(simple) - 1, -1, -1):
        out[k] = after
        if not simple[k]:
            after = k
    return out


def _can_move(targets: list, reads: list, last: Dict[str, int], i: int, j: int,
              stores: Counter, small: Set[str]) -> bool:
    """With only simple statements from i to j (`targets`: what each assigns): none
    between rebinds what moves, and the temporaries the expression reads are read at j
    or later anyway."""
    moved = reads[i]
    for k in range(i + 1, j):
        if targets[k] in moved:
            return False
    return all(last.get(n, -1) >= j for n in moved
               if n.startswith(RESERVED_PREFIX) and n in stores and n not in small)


def _put(node: ast.expr, name: str, value: ast.expr) -> ast.expr:
    """`node` with `value` in place of every Name `name` below it."""
    kind = type(node)
    if kind is ast.Name:
        return value if node.id == name else node
    if kind is ast.BinOp:
        node.left = _put(node.left, name, value)
        node.right = _put(node.right, name, value)
    elif kind is ast.UnaryOp:
        node.operand = _put(node.operand, name, value)
    elif kind is ast.Attribute:
        node.value = _put(node.value, name, value)
    elif kind is ast.Call:
        node.func = _put(node.func, name, value)
        node.args = [_put(arg, name, value) for arg in node.args]
        for keyword in node.keywords:
            keyword.value = _put(keyword.value, name, value)
    elif kind is not ast.Constant:
        _replace(node, name, value)
    return node


def _replace(node: ast.AST, name: str, value: ast.expr) -> None:
    """Put `value` in place of every Name `name` below `node`."""
    for field in node_fields(type(node)):
        child = getattr(node, field, None)
        if type(child) is list:
            child[:] = [_put(item, name, value) if isinstance(item, ast.expr) else item
                        for item in child]
            for item in child:
                if not isinstance(item, ast.expr) and isinstance(item, ast.AST):
                    _replace(item, name, value)
        elif isinstance(child, ast.expr):
            setattr(node, field, _put(child, name, value))
        elif isinstance(child, ast.AST):
            _replace(child, name, value)
