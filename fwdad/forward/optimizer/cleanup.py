"""Clean an optimized rule: drop tangent work nobody reads, move single-use tangents
into their use, free dead temporaries.

After this pass every tangent local the optimizer assigned is read somewhere, and each
temporary assigned at the top level of the rule is deleted after its last use there, so
that large arrays do not stay alive until the rule returns (as they would not in the
user's nested expression either). The pass works on the records of the rewrite
(optimizer/records.py), which say what each statement is. They are walked once; counts
are then kept up to date as records change, so the pass stays linear in the size of
the rule (optimizer/reads.py keeps the counts).
"""
from __future__ import annotations

import ast
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from fwdad.forward.optimizer.moves import substitute
from fwdad.forward.optimizer.reads import Reads, Root, reads_of
from fwdad.forward.optimizer.records import (
    MOVE,
    PRIMAL,
    TANGENT,
    Assign,
    Block,
    Del,
    Raw,
    Record,
    Return,
    Split,
)
from fwdad.normalize.names import RESERVED_PREFIX


def cleanup(body: List[Record], args: ast.arguments, small: Set[str] = frozenset()
            ) -> List[Record]:
    """Clean the records `body` of a rule with parameters `args`; temporaries in `small`
    that are bound once hold one number and get no `del` (it would free no array)."""
    root = Root(body)
    reads = Reads()
    reads.root(root, args)
    reads.count()
    loads = reads.loads
    _drop_needless_copies(reads)
    if any(_without_dead_tangent(record, loads) is not record for record in reads.marked):
        while _drop_dead_tangents(reads.blocks, reads):
            pass
    small = {name for name in small if reads.stores[name] == 1}
    top: Any = None
    below: Dict[int, tuple] = {}
    for node, field in reads.blocks:
        records, sets = substitute(getattr(node, field), reads, below, small)
        setattr(node, field, records)
        top = sets if node is root else top
    return _free_temporaries(root.body, top, small, set(), Reads(), False)[0]


def _drop_needless_copies(reads: Reads) -> None:
    """`dy = +_fw_dx` -> `dy = _fw_dx` where nothing else reads or assigns `_fw_dx`: the
    optimizer copies a tangent that a template passes through, which only another
    holder of it needs (forward/optimizer/inline.py marks the copies of new tangents)."""
    loads, stores = reads.loads, reads.stores
    for record in reads.marked:
        name = getattr(record, "copy_of", None)
        if name is not None and loads[name] == 1 and stores[name] == 1:
            record.value = record.value.operand  # type: ignore[attr-defined]


# ---- dead tangents ------------------------------------------------------------------
def _drop_dead_tangents(blocks: List[Tuple[Any, str]], reads: Reads) -> bool:
    """One round of removing `dy = ...` whose dy is never read; True if any went."""
    changed, loads = False, reads.loads
    for node, field in blocks:
        records, kept = getattr(node, field), []
        for record in records:
            new = _without_dead_tangent(record, loads)
            if new is not record:
                changed = True
                for name in reads.of(record):
                    loads[name] -= 1
                if new is not None:
                    reads.of(new)  # scanning it counts its reads
            if new is not None:
                kept.append(new)
        if not kept:
            kept = [Raw(ast.Pass())]
            kept[0].lineno = lineno_of(records[0])
        setattr(node, field, kept)
    return changed


def _without_dead_tangent(record: Record, loads: Counter) -> Optional[Record]:
    """None for a tangent assignment nobody reads, `y = y.primal` for a split whose
    tangent nobody reads, else `record`."""
    kind = type(record)
    if kind is Assign:
        if record.role is TANGENT and loads[record.targets[0]] <= 0:
            return None
    elif kind is Split and record.dname is not None and loads[record.dname] <= 0:
        new = Split(record.name, None)
        new.lineno = record.lineno
        return new
    return record


def lineno_of(record: Record) -> Optional[int]:
    """The user's line the printed statement of `record` has."""
    if record.lineno is None and type(record) is Raw:
        return record.stmt.__dict__.get("lineno")  # type: ignore[attr-defined]
    return record.lineno


# ---- freeing temporaries ----------------------------------------------------------
def free_temporaries(body: List[Record], reads: List[Set[str]]) -> List[Record]:
    """Only the last step of `cleanup`, for the records of a rule that is not optimized
    (forward/transform/plain_code.py), given the names each reads (its blocks'
    included): `del` each temporary after its last use. A dead temporary that still
    held a value read from an argument (`x.tangent`) would count as one more holder of
    that array, and keep it from being widened (fwdad/rules/widening.py)."""
    return _free_temporaries(body, reads, set(), set(), Reads(), False)[0]


def _free_temporaries(body: List[Record], reads: List[Set[str]], small: Set[str],
                      live: Set[str], table: Reads, nested: bool
                      ) -> Tuple[List[Record], Set[str]]:
    """`del _fw_t` after the record of `body` that reads a temporary last (unless it is
    `small`), given the names each record reads (`reads`) and those read after `body`
    (`live`); a temporary is freed in the body that assigns it. Returns the records,
    and the names freed. Temporaries in the bodies of `if`, `with` and loops are freed
    too (`nested`): one read only there would otherwise live until the rule returns,
    and if it held an argument's tangent, keep that from being widened (setitem's
    `x.tangent` read inside its `if`: tests/test_linearize_grad_writes.py). There, a
    template's value (a new number or array, which holds no argument's) is left as it
    was: a `del` in a loop of floats costs more than it frees."""
    assigned: Set[str] = set()
    freed: Set[str] = set()
    later = _read_later(reads, live)
    out: List[Record] = []
    for i, record in enumerate(body):
        inside: Set[str] = set()
        if type(record) is Block:
            inside = _free_inside(record, later[i], small, table)
            assigned -= inside  # (freed on one path: no longer surely bound)
            freed |= inside
        out.append(record)
        dead = [n for n in reads[i] if n in assigned and n not in later[i] and n not in small]
        assigned.update(n for n in _assigned(record) if n.startswith(RESERVED_PREFIX) and
                        not (nested and _templated(record)))
        if dead and not _ends(record):
            dead.sort()
            freed.update(dead)
            free = Del(dead)
            free.lineno = lineno_of(record)
            out.append(free)
    return out, freed


def _templated(record: Record) -> bool:
    """Whether `record` assigns a template's primal or tangent (or moves its new value:
    `_fw_x_new`)."""
    return type(record) is Assign and record.role in (PRIMAL, TANGENT, MOVE)  # type: ignore


def _read_later(reads: List[Set[str]], live: Set[str]) -> List[Set[str]]:
    """For each record, the names read after it: by the records after it, or `live`."""
    out: List[Set[str]] = [set()] * len(reads)
    after = set(live)
    for i in range(len(reads) - 1, -1, -1):
        out[i] = after
        after = after | reads[i]
    return out


def _free_inside(block: Block, live: Set[str], small: Set[str], table: Reads) -> Set[str]:
    """Free the temporaries of the bodies of `block` (an if, with, for or while; the
    parts of a try are left as they are: a handler may read what its body assigned),
    given what is read after it; the names freed. A loop's body runs again: what its
    header or else reads, and what its body may read before it assigns it, stay."""
    kind = block.kind
    if kind not in (ast.If, ast.With, ast.For, ast.While):
        return set()
    cache: Dict[int, tuple] = {}
    bodies = [(field, [table.below(r, cache) for r in getattr(block, field)])
              for field in ("body", "orelse")]
    if kind in (ast.For, ast.While):
        live = live | _header_reads(block) | set().union(*bodies[1][1]) | _exposed(
            block.body, bodies[0][1], table, cache)
    freed: Set[str] = set()
    for field, reads in bodies:
        if reads:
            records, names = _free_temporaries(getattr(block, field), reads, small, live,
                                               table, True)
            setattr(block, field, records)
            freed |= names
    return freed


def _header_reads(block: Block) -> Set[str]:
    """The names a Block's own expressions read (test, iter, ...)."""
    names: List[str] = []
    for value in block.fields.values():
        if value is not None:
            reads_of(value, names, Counter(), [])
    return set(names)


def _exposed(body: List[Record], reads: List[Set[str]], table: Reads,
             cache: Dict[int, tuple], assigned: Set[str] = frozenset()) -> Set[str]:
    """The names `body` may read before it assigns them (in a loop's body: the values
    of the turn before), given those `assigned` before it."""
    assigned = set(assigned)
    out: Set[str] = set()
    for record, names in zip(body, reads):
        if type(record) is Block and record.kind in (ast.If, ast.With, ast.For, ast.While):
            out |= _header_reads(record) - assigned
            for inner in (record.body, record.orelse):
                out |= _exposed(inner, [table.below(r, cache) for r in inner], table,
                                cache, assigned)
        else:
            out |= names - assigned
        assigned.update(_assigned(record))
    return out


def _assigned(record: Record) -> Sequence[str]:
    """The names an assignment record surely binds (a kept statement's, as its Line
    said: optimizer/opaque.py)."""
    kind = type(record)
    if kind is Assign:
        return record.targets  # type: ignore[attr-defined,no-any-return]
    if kind is Split:
        return [n for n in (record.name, record.dname) if n]  # type: ignore[attr-defined]
    if kind is Raw and record.opaque is not None:  # type: ignore[attr-defined]
        return record.opaque.assigns  # type: ignore[attr-defined,no-any-return]
    return ()


def _ends(record: Record) -> bool:
    """Whether the record leaves the rule (no statement after it runs)."""
    kind = type(record)
    if kind is Raw:
        return isinstance(record.stmt, (ast.Return, ast.Raise))  # type: ignore[attr-defined]
    return kind is Return or (kind is Block and record.kind is ast.Raise)  # type: ignore
