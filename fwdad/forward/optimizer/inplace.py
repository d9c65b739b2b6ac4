"""Join the lines of an in-place update of an array local into one `update` Line.

    _fw_item1 = _fw_getitem(r, _fw_key1)
    ...                                          (the value: lines that touch neither)
    _fw_iadd1 = _fw_iadd(_fw_item1, v)      ->   Line("update", targets=[r], args=[r, key, v])
    _fw_setitem(r, _fw_key1, _fw_iadd1)
    _fw_setitem(r, _fw_0, v)                ->   Line("update", ...)    (r[0] = v)
    r = _fw_iadd(r, v)                      ->   Line("update", ...)    (r += v)
    _fw_add(a, b, out=r)                    ->   Line("update", targets=[r], args=[r, a, b])
                                                 (Update.out: a ufunc's out= is r)

The calls were impure, so activity analysis kept r boxed, and every local r was made
from with it (a call result may alias its operands). An update line is pure for the
analysis: r is active when r or v is, and r can be split into a primal and a tangent
local, which the update writes in place (forward/optimizer/updates.py).

Only where nothing else can see r's arrays: r is a local (not a parameter) that only
templates (new arrays) and its own updates assign, and that only templates, returns,
tests and the values of other updates read; no statement the optimizer does not know
mentions it. Any other read (a view `r[1:]`, a copy `s = r`, a call, a loop over r)
may make a second name for r's memory, and then r is left as it was: never guessed.
Leaves the Lines with each joined group's first lines as `skip` and its last as
`update` (Line.template holds the Update); joining twice changes nothing.
"""
from __future__ import annotations

import ast
import operator
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np

from fwdad import lang
from fwdad.forward.optimizer import batched_updates, updates
from fwdad.forward.optimizer.activity import BOXED, PLAIN
from fwdad.forward.optimizer.lines import Atom, Line, walk_lines
from fwdad.forward.optimizer.records import CALL, Assign, Record
from fwdad.forward.optimizer.updates import Update
from fwdad.forward.transform.astbuild import call, load

# the in-place operators of `r[k] op= v` and `r op= v` (normalize/intrinsics.py)
UPDATE_OPERATORS = frozenset({operator.iadd, operator.isub, operator.imul,
                              operator.itruediv})
_BUILDERS = (lang.build_slice, lang.build_tuple)


def join_updates(body: List[Line], params: Set[str], outs: bool = True) -> None:
    """Find the in-place updates of locals that nothing else can see (the module
    docstring) and join each into one `update` line, in place; with `outs`, ufunc calls
    whose `out=` is such a local too (the variant for batched tangents, whose batch
    axes read an update's target and value alone, leaves them)."""
    everything = walk_lines(body)
    groups: Dict[str, List[Tuple[List[Line], int, List[Line]]]] = {}
    counts = _reads(everything)
    _collect(body, counts, groups, outs)
    if not groups:
        return
    grouped = {id(line): name for name, found in groups.items()
               for group, _, _ in found for line in group}
    for name, found in groups.items():
        if name in params or not _private(name, everything, grouped):
            continue
        for group, at, block in found:
            block[at] = _join(group)


def _reads(lines: List[Line]) -> Dict[str, int]:
    """How often each name is read: as an operand, a tested primal or by a statement
    the optimizer does not know."""
    counts: Dict[str, int] = {}
    for line in lines:
        names = [a.name for a in line.operands] + [a.name for a in line.tested]
        if line.kind == "unknown":
            names += line.opaque.mentioned
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return counts


def _collect(block: List[Line], counts: Dict[str, int],
             groups: Dict[str, List[Tuple[List[Line], int, List[Line]]]], outs: bool) -> None:
    """The candidate groups of each block, by the local they update: (its lines, the
    position of its last in the block, the block)."""
    for i, line in enumerate(block):
        if line.body or line.orelse:
            _collect(line.body, counts, groups, outs)
            _collect(line.orelse, counts, groups, outs)
        out = _out_of(line) if outs else None
        if out is not None:
            groups.setdefault(out.name, []).append(([line], i, block))
            continue
        group = _group_at(block, i, counts)
        if group is not None:
            groups.setdefault(group[-1].args[0][0].name, []).append((group, i, block))


def _out_of(line: Line) -> Optional[Atom]:
    """The local r of a call `ufunc(a, b, out=r)` (one output, inputs by position, no
    other keyword) whose result is dropped or bound to r again; None for other lines.
    The ufunc's frule writes r's primal and tangent in place, as `r[...] = a + b` would
    (forward/optimizer/updates.py `update_owned`)."""
    fn = _primal(line)
    if type(fn) is not np.ufunc or fn.nout != 1 or line.kind != "call" or \
            line.entry is None or line.entry.kind != "frule" or \
            len(line.args) != fn.nin or any(starred for _, starred in line.args) or \
            len(line.keywords) != 1 or \
            line.keywords[0][0] != "out":
        return None
    out = line.keywords[0][1]
    return out if out.kind == "local" and line.targets in ([], [out.name]) else None


def _primal(line: Line) -> Any:
    return getattr(line.entry, "primal", None) if line.kind in ("call", "template") \
        else None


def _plain_args(line: Line, count: int) -> bool:
    return len(line.args) == count and not line.keywords and \
        not any(starred for _, starred in line.args)


def _group_at(block: List[Line], i: int, counts: Dict[str, int]) -> Optional[List[Line]]:
    """The lines of an update that ends at block[i], or None."""
    line = block[i]
    fn = _primal(line)
    if fn in UPDATE_OPERATORS and _plain_args(line, 2):  # r = iadd(r, v)
        target, value = line.args[0][0], line.args[1][0]
        if target.kind == "local" and line.targets == [target.name] and \
                value.name != target.name:
            return [line]
        return None
    if fn is not operator.setitem or not _plain_args(line, 3) or line.targets:
        return None
    target, key, value = (a for a, _ in line.args)
    if target.kind != "local" or key.name == target.name or value.name == target.name:
        return None
    if i == 0 or _primal(block[i - 1]) not in UPDATE_OPERATORS:
        return [line]  # r[k] = v
    op = block[i - 1]
    if not (_plain_args(op, 2) and op.targets == [value.name]
            and counts.get(value.name) == 1):
        return [line]
    item, operand = op.args[0][0], op.args[1][0]
    for j in range(i - 2, -1, -1):
        get = block[j]
        if get.targets == [item.name]:
            if _primal(get) is operator.getitem and _plain_args(get, 2) and \
                    get.args[0][0].name == target.name and \
                    get.args[1][0].name == key.name and counts.get(item.name) == 1 and \
                    operand.name not in (target.name, item.name):
                return [get, op, line]
            return None
        if not _untouched(get, {target.name, key.name, item.name}, {target.name, item.name}):
            return None
    return None


def _untouched(line: Line, assigned: Set[str], read: Set[str]) -> bool:
    """Whether `line` (between the read of r[k] and its update) assigns none of
    `assigned`, reads none of `read`, has no blocks and mutates nothing (building a
    slice or a tuple counts as impure only because the result is new)."""
    return line.kind in ("call", "template", "copy") and (
        line.pure or _primal(line) in _BUILDERS) and \
        not line.body and not line.orelse and not set(line.targets) & assigned and \
        not any(a.name in read for a in line.operands)


def _private(name: str, lines: List[Line], grouped: Dict[int, str]) -> bool:
    """Whether only templates and `name`'s own updates assign it, and only
    templates, returns, tests, its updates and the values of others read it."""
    for line in lines:
        mine = grouped.get(id(line)) == name
        if name in line.targets and not (line.kind == "template" or mine):
            return False
        if line.kind == "unknown":
            if name in line.opaque.mentioned:
                return False
            continue
        reads = [a for a in line.operands if a.kind == "local" and a.name == name]
        if not reads or line.kind in ("template", "use") or mine:
            continue
        if not ((id(line) in grouped or line.kind == "update") and
                _only_value(line, name)):
            return False
    return True


def _only_value(line: Line, name: str) -> bool:
    """Whether `name` is read by `line`, an update of another local, as its value."""
    atoms: List[Atom] = [a for a, _ in line.args]
    value = atoms[-1]
    return all(a.name != name for a in atoms[:-1]) and value.name == name


def _join(group: List[Line]) -> Line:
    """The update line standing for `group`, whose other lines become skips."""
    last = group[-1]
    out = _out_of(last)
    if out is not None:  # ufunc(a, b, out=r)
        joined = Line("update", last.node, [out.name], [(out, False)] + last.args,
                      callee=last.callee, entry=last.entry, pure=True)
        joined.template = Update(None, last.callee, None, True, _primal(last), out=True)
        return joined
    if len(group) == 1 and last.targets:  # r = iadd(r, v)
        target, value = last.args[0][0], last.args[1][0]
        update, key = Update(None, last.callee, None, True, _primal(last)), None
    elif len(group) == 1:  # setitem(r, k, v)
        target, key, value = (a for a, _ in last.args)
        update = Update(None, None, last.callee, False, None)
    else:
        get, op, _ = group
        target, key, value = get.args[0][0], get.args[1][0], op.args[1][0]
        update = Update(get.callee, op.callee, last.callee, False, _primal(op))
    for line in group[:-1]:
        line.kind, line.targets = "skip", []
    joined = Line("update", last.node, [target.name],
                  [(target, False)] + ([(key, False)] if key is not None else []) +
                  [(value, False)], callee=last.callee, entry=last.entry, pure=True)
    joined.template, joined.lineno = update, last.lineno
    return joined


# ---- the rewrite of an update line -----------------------------------------------------
def rewrite(rw: Any, line: Line) -> List[Record]:
    """The statements of an update line (forward/optimizer/updates.py runs it): on
    primals for a plain local; through the plain rule's frules on a boxed one; on the
    Dual of a split one's primal and private tangent, split again after; or, in the
    variant for batched tangents and kinds, written inline where that is known to be
    the same (forward/optimizer/batched_updates.py)."""
    if rw.batched and rw.axes is not None:
        written = batched_updates.inlined(rw, line)
        if written is not None:
            rw.inlined = True
            return written
    update: Update = line.template
    atoms = [a for a, _ in line.args]
    if update.out:
        return _rewrite_out(rw, line, update, atoms)
    target, value = line.targets[0], atoms[-1]
    key = atoms[1] if len(atoms) == 3 else None
    bind = rw.k.bind
    kind = rw.kinds[target]
    spec = bind(update, "update")
    if kind == PLAIN:
        return [Assign([target], call(bind(updates.update_primal, "update_primal"), spec,
                                      load(target), _key(rw, key, rw.primal),
                                      rw.primal(value)), CALL)]
    helper = updates.update_boxed if kind == BOXED else updates.update_owned
    stmt = Assign([target], call(bind(helper, helper.__name__), spec, rw.dual(atoms[0]),
                                 _key(rw, key, rw.dual), rw.dual(value)), CALL)
    return [stmt] if kind == BOXED else [stmt, rw.split(target)]


def _rewrite_out(rw: Any, line: Line, update: Update, atoms: List[Atom]) -> List[Record]:
    """The statements of `ufunc(a, b, out=r)` joined: on primals, or through the
    ufunc's frule on the Dual of r (boxed, or split with its private tangent)."""
    target, bind, kind = line.targets[0], rw.k.bind, rw.kinds[line.targets[0]]
    spec = bind(update, "update")
    if kind == PLAIN:
        return [Assign([target], call(bind(updates.out_primal, "out_primal"), spec,
                                      load(target), *[rw.primal(a) for a in atoms[1:]]),
                       CALL)]
    helper = updates.update_boxed if kind == BOXED else updates.update_owned
    stmt = Assign([target], call(bind(helper, helper.__name__), spec, rw.dual(atoms[0]),
                                 ast.Constant(value=None), *[rw.dual(a) for a in atoms[1:]]),
                  CALL)
    return [stmt] if kind == BOXED else [stmt, rw.split(target)]


def _key(rw: Any, key: Optional[Atom], form: Any) -> ast.expr:
    return ast.Constant(value=None) if key is None else form(key)
