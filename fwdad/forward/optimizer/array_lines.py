"""Basic slicing and np.roll of float arrays, inlined where the rule's kinds are known.

    _fw_item1 = _fw_getitem(flux, _fw_slice1)    ->  _fw_item1 = flux[_fw_slice1]
                                                     _fw_ditem1 = dflux[..., _fw_slice1]
    _fw_roll1 = _fw_roll(u, _fw_1)               ->  _fw_roll1 = np.roll(u, 1)
                                                     _fw_droll1 = np.roll(du, 1, axis=-1)
In a variant for the arguments' kinds (forward/optimizer/kind_flow.py), `x[k]` with x a
float array of rank r and k a slice, or a tuple of n <= r slices (of ints and Nones),
is a view of x with its r axes; its tangent is the same slices of the tangent's last r
axes, `dx[(..., *k, :, ...)]`, a view too, right whether dx has a batch axis in front
or not. That is what getitem_rule gives (rules/indexing.py). Likewise `np.roll(x, s)` of a
vector rolls the tangent's last axis (rules/shapes.py). The rules are called where the
tangent may be NoTangent at run time for a reason no parameter's guard explains.
"""
from __future__ import annotations

import ast
import operator
from typing import Any, Dict, List, Optional

import numpy as np

from fwdad.forward.optimizer.activity import SPLIT
from fwdad.forward.optimizer.kind_flow import operand_kind
from fwdad.forward.optimizer.kinds import INT, Kind
from fwdad.forward.optimizer.lines import Line
from fwdad.forward.optimizer.records import PRIMAL, TANGENT, Assign, Record
from fwdad.forward.optimizer.vanishing import ALWAYS
from fwdad.forward.transform.astbuild import LOAD


def inlined(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """The records of a line that slices or rolls a split float array, or None."""
    fn = getattr(line.entry, "primal", None)
    if fn is np.roll:
        return _rolled(rw, line, target)
    return _sliced(rw, line, target)


def passes_tangent(line: Line, kinds: Dict[str, Kind]) -> bool:
    """Whether the tangent of `line`'s result is NoTangent only where its first
    operand's is (forward/optimizer/vanishing.py): a slice or a roll of a float array."""
    fn = getattr(line.entry, "primal", None)
    if line.kind != "call" or fn not in (operator.getitem, np.roll) or \
            len(line.args) != 2 or line.keywords or any(s for _, s in line.args):
        return False
    array, other = (operand_kind(a, kinds) for a, _ in line.args)
    if fn is np.roll:
        return array[:2] == ("array", 1) and other == INT
    return array[0] == "array" and other[0] in ("slice", "slices")


def _rolled(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """`np.roll(u, s)` of a split vector: its tangent rolled along the last axis."""
    x = line.args[0][0]
    if target is None or rw.kinds.get(target) != SPLIT or \
            not passes_tangent(line, rw.value_kinds) or x.kind != "local" or \
            rw.kinds.get(x.name) != SPLIT or x.name in rw.opaque:
        return None
    causes = rw.vanish.get(x.name, frozenset())
    if ALWAYS in causes:
        return None
    rw.needs_tangents |= causes  # (the guard checks that those parameters have one)
    roll = rw.k.bind(np.roll, "np_roll")
    shift_atom = line.args[1][0]
    shift = rw.primal(shift_atom)
    reads = [roll.id] + ([shift_atom.name] if shift_atom.kind == "local" else [])
    tangent = ast.Call(func=roll, args=[rw.name_node(rw.dnames[x.name]), shift],
                       keywords=[ast.keyword(arg="axis", value=ast.Constant(-1))])
    primal = ast.Call(func=roll, args=[rw.name_node(x.name), shift], keywords=[])
    return [Assign([target], primal, PRIMAL, [x.name] + reads),
            Assign([rw.dnames[target]], tangent, TANGENT, [rw.dnames[x.name]] + reads)]


def _sliced(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """`x[k]` of a split float array, k slices: its tangent the same slices' view."""
    if target is None or rw.kinds.get(target) != SPLIT or \
            getattr(line.entry, "primal", None) is not operator.getitem or \
            len(line.args) != 2 or line.keywords or any(s for _, s in line.args):
        return None
    (x, _), (key, _) = line.args
    if x.kind != "local" or rw.kinds.get(x.name) != SPLIT or x.name in rw.opaque or \
            key.kind != "local":
        return None
    array, index = operand_kind(x, rw.value_kinds), operand_kind(key, rw.value_kinds)
    causes = rw.vanish.get(x.name, frozenset())
    if array[0] != "array" or ALWAYS in causes:
        return None
    rank = int(array[1])
    count = 1 if index[0] == "slice" else int(index[1]) if index[0] == "slices" else None
    if count is None or count > rank:
        return None
    rw.needs_tangents |= causes  # (the guard checks that those parameters have one)
    name, dname = rw.name_node(x.name), rw.name_node(rw.dnames[x.name])
    k = rw.name_node(key.name)
    rest = [ast.Slice() for _ in range(rank - count)]
    if count == 1 and index[0] == "slice":
        tangent_key: ast.expr = ast.Tuple(elts=[ast.Constant(Ellipsis), k] + rest, ctx=LOAD)
    else:  # (a tuple of slices: spliced in at run time)
        tangent_key = ast.BinOp(
            left=ast.BinOp(left=ast.Tuple(elts=[ast.Constant(Ellipsis)], ctx=LOAD),
                           op=ast.Add(), right=k),
            op=ast.Add(), right=ast.Tuple(elts=rest, ctx=LOAD))
    return [Assign([target], ast.Subscript(value=name, slice=k, ctx=LOAD), PRIMAL,
                   [x.name, key.name]),
            Assign([rw.dnames[target]], ast.Subscript(value=dname, slice=tangent_key,
                                                      ctx=LOAD), TANGENT,
                   [rw.dnames[x.name], key.name])]
