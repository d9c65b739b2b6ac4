"""In-place updates of a private float array, written inline in the variant for batched
tangents and the arguments' kinds.

    r = _fw_update_owned(_fw_update, _fw_Dual(r, dr), _fw_key1, _fw_Dual(v, dv))
    r, dr = r.primal, r.tangent                 ->   r[_fw_key1] += v
                                                     dr[..., _fw_key1] += dv
    (r[0] = v0)                                 ->   r[0] = v0
                                                     dr[..., 0] = dv0
The update is one that forward/optimizer/inplace.py joined: r is a local that nothing
else can see (no parameter, no view of anything), so writing into r and dr in place is
what the plain rule's setitem does (rules/indexing.py, rules/widening.assign). It is
written inline when all of this is known as the rule is built, else it calls
updates.update_owned, which checks each at run time:
- `=`, `+=` or `-=` (linear in the tangents), into an int, a slice or a tuple of slices
  (forward/optimizer/array_lines.tangent_key: a batch axis stays in front);
- r a float array (kinds: no int array written with floats), the value one with no
  tangent (which leaves dr as it is, or zero where it is written) or a float number or
  float array whose number of axes is that of the part written, so that its tangent,
  batched or not, broadcasts as its primal does (a number into a slice needs the rule's
  `lift`: left to it);
- dr exists (r was built from what has tangents: else the rule makes a zero first),
  and dv too unless the value has no tangent at all (`dr[..., k] = 0.0`), each by the
  guard's check of the parameters behind them (forward/optimizer/vanishing.py);
- dr has a batch axis wherever dv may have one (forward/optimizer/batch_axes.py): else
  the rule widens dr first.
"""
from __future__ import annotations

import ast
import operator
from typing import Any, List, Optional

from fwdad.forward.optimizer.activity import SPLIT
from fwdad.forward.optimizer.array_lines import tangent_key
from fwdad.forward.optimizer.kind_flow import operand_kind
from fwdad.forward.optimizer.kinds import FLOAT, INT, Kind
from fwdad.forward.optimizer.lines import Atom, Line
from fwdad.forward.optimizer.records import Raw, Record
from fwdad.forward.optimizer.updates import Update
from fwdad.forward.optimizer.vanishing import ALWAYS
from fwdad.forward.transform.astbuild import STORE

_OPERATORS = {operator.iadd: ast.Add, operator.isub: ast.Sub}


def inlined(rw: Any, line: Line) -> Optional[List[Record]]:
    """The statements of the update line `line` written inline, or None (see the module
    docstring)."""
    update: Update = line.template
    atoms = [a for a, _ in line.args]
    if rw.axes is None or update.whole or len(atoms) != 3 or (
            update.primal_op is not None and update.primal_op not in _OPERATORS):
        return None
    target, key, value = line.targets[0], atoms[1], atoms[2]
    array, index = operand_kind(atoms[0], rw.value_kinds), operand_kind(key, rw.value_kinds)
    if rw.kinds.get(target) != SPLIT or target in rw.opaque or array[0] != "array" or \
            not _basic(index, int(array[1])) or (index != INT and key.kind != "local"):
        return None
    part = int(array[1]) - (1 if index == INT else 0)
    if rw.active(value) and not _fits(operand_kind(value, rw.value_kinds), part):
        return None
    causes = _causes(rw, target, value)
    if causes is None:
        return None
    rw.needs_tangents |= causes
    return _statements(rw, update, target, key, value, index, int(array[1]))


def _basic(index: Kind, rank: int) -> bool:
    """An int (of an array with axes), a slice, or a tuple of at most `rank` slices."""
    if index == INT or index[0] == "slice":
        return rank >= 1
    return index[0] == "slices" and int(index[1]) <= rank


def _fits(kind: Kind, part: int) -> bool:
    """Whether a value of `kind` written into a part of `part` axes of a float array
    has a tangent that broadcasts there as it does, batch axis or not: a float array
    of as many axes, or a number (a Python int or bool has no tangent) into one item."""
    if kind[0] == "array":
        return int(kind[1]) == part
    return part == 0 and (kind in (FLOAT, INT) or kind[0] == "npfloat")


def _causes(rw: Any, target: str, value: Atom) -> Optional[frozenset]:
    """The parameters whose tangents dr and dv need (for the guard), or None where one
    may be NoTangent for another reason, or dv may be batched where dr is not."""
    causes = rw.vanish.get(target, frozenset())
    if ALWAYS in causes:
        return None
    if not rw.active(value):
        return causes
    if value.kind != "local" or value.name in rw.opaque or \
            not rw.axes.follows(value.name, target):
        return None
    of_value = rw.vanish.get(value.name, frozenset())
    return None if ALWAYS in of_value else causes | of_value


def _statements(rw: Any, update: Update, target: str, key: Atom, value: Atom,
                index: Kind, rank: int) -> List[Record]:
    """`r[k] op= v` and `dr[..., k] op= dv` (`dr[..., k] = 0.0` for a value with no
    tangent; nothing for `+=` of one)."""
    k = rw.primal(key)
    written = ast.Subscript(value=rw.name_node(target), slice=k, ctx=STORE)
    dwritten = ast.Subscript(value=rw.name_node(rw.dnames[target]),
                             slice=tangent_key(k, index, rank), ctx=STORE)
    op = _OPERATORS.get(update.primal_op)
    active = rw.active(value)
    tangent: ast.expr = rw.tangent(value) if active else ast.Constant(0.0)
    if op is None:
        return [Raw(ast.Assign(targets=[written], value=rw.primal(value))),
                Raw(ast.Assign(targets=[dwritten], value=tangent))]
    out = [Raw(ast.AugAssign(target=written, op=op(), value=rw.primal(value)))]
    if active:
        out.append(Raw(ast.AugAssign(target=dwritten, op=op(), value=tangent)))
    return out

