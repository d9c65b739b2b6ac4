"""Basic indexing, np.roll and whole sums of float arrays, inlined where the rule's kinds
are known.

    _fw_item1 = _fw_getitem(flux, _fw_slice1)    ->  _fw_item1 = flux[_fw_slice1]
                                                     _fw_ditem1 = dflux[..., _fw_slice1]
    _fw_item2 = _fw_getitem(u, _fw_0)            ->  _fw_item2 = u[0]
                                                     _fw_ditem2 = du.take(0, axis=-1)
    _fw_roll1 = _fw_roll(u, _fw_1)               ->  _fw_roll1 = rolled(u, 1)
                                                     _fw_droll1 = rolled(du, 1, -1)
    _fw_sum1 = _fw_np_sum(u)                     ->  _fw_sum1 = u.sum()
                                                     _fw_dsum1 = du.sum(axis=-1)
In a variant for the arguments' kinds (forward/optimizer/kind_flow.py), `x[k]` with x a
float array of rank r and k a slice, or a tuple of n <= r slices (of ints and Nones),
is a view of x with its r axes; its tangent is the same slices of the tangent's last r
axes, `dx[(..., *k, :, ...)]`, a view too, right whether dx has a batch axis in front
or not. An int k drops x's first axis: a view of a matrix, whose tangent is
`dx[..., k, :]`; a number of a vector, whose tangent `dx.take(k, axis=-1)` is a number
too, or a new vector of the batch (a copy, as the number is). That is what
getitem_rule gives (rules/indexing.py). Likewise `np.roll(x, s)` of a vector rolls the
tangent's last axis (rules/shapes.py, whose `rolled` is np.roll's array, quicker), and
a sum or mean of a whole array of rank r reduces the tangent's last r axes
(rules/reductions.py). The rules are called where the tangent may be NoTangent at run
time for a reason no parameter's guard explains.
"""
from __future__ import annotations

import ast
import operator
from typing import Any, Dict, List, Optional

import numpy as np

from fwdad.forward.optimizer.activity import SPLIT
from fwdad.forward.optimizer.kind_flow import operand_kind
from fwdad.forward.optimizer.kinds import INT, Kind
from fwdad.forward.optimizer.lines import Atom, Line
from fwdad.forward.optimizer.records import PRIMAL, TANGENT, Assign, Record
from fwdad.forward.optimizer.vanishing import ALWAYS
from fwdad.forward.transform.astbuild import LOAD
from fwdad.rules.shapes import rolled

# the templates of whole-array reductions, by the method each is on a plain ndarray
_REDUCTIONS = {"_np_sum": "sum", "_np_mean": "mean"}


def inlined(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """The records of a line that indexes or rolls a split float array, or None."""
    fn = getattr(line.entry, "primal", None)
    if fn is np.roll:
        return _rolled(rw, line, target)
    if fn is np.ndarray.reshape:
        return _reshaped(rw, line, target)
    return _indexed(rw, line, target)


def passes_tangent(line: Line, kinds: Dict[str, Kind]) -> bool:
    """Whether the tangent of `line`'s result is NoTangent only where its first
    operand's is (forward/optimizer/vanishing.py): a slice, an item or a roll of a
    float array. (Its batch axis is then where the operand's is: batch_axes.py.)"""
    fn = getattr(line.entry, "primal", None)
    if line.kind != "call" or line.keywords or any(s for _, s in line.args):
        return False
    if fn is np.ndarray.reshape:
        return len(line.args) >= 2 and all(
            kind == INT for kind in (operand_kind(a, kinds) for a, _ in line.args[1:])) \
            and operand_kind(line.args[0][0], kinds)[:2] == ("array", 1)
    if fn not in (operator.getitem, np.roll) or len(line.args) != 2:
        return False
    array, other = (operand_kind(a, kinds) for a, _ in line.args)
    if fn is np.roll:
        return array[:2] == ("array", 1) and other == INT
    return array[0] == "array" and (other[0] in ("slice", "slices") or (
        other == INT and int(array[1]) >= 1))


def _source(rw: Any, x: Atom) -> Optional[frozenset]:
    """Why the tangent of the operand `x` may be NoTangent (its parameters, for the
    guard to check), or None where it may not be inlined: not a split local, opaque,
    or with a tangent that may be NoTangent for other reasons."""
    if x.kind != "local" or rw.kinds.get(x.name) != SPLIT or x.name in rw.opaque:
        return None
    causes = rw.vanish.get(x.name, frozenset())
    return None if ALWAYS in causes else causes


def _split_operand(rw: Any, line: Line, target: Optional[str]) -> Any:
    """The operand of a line on a split vector whose tangent it passes on, with the
    parameters it comes from noted for the guard to check (they need a tangent); None
    where the line is not one."""
    x = line.args[0][0]
    if target is None or rw.kinds.get(target) != SPLIT or \
            not passes_tangent(line, rw.value_kinds):
        return None
    causes = _source(rw, x)
    if causes is None:
        return None
    rw.needs_tangents |= causes  # (the guard checks that those parameters have one)
    return x


def _rolled(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """`np.roll(u, s)` of a split vector: its tangent rolled along the last axis."""
    x = _split_operand(rw, line, target)
    if x is None:
        return None
    roll = rw.k.bind(rolled, "rolled")
    shift_atom = line.args[1][0]
    shift = rw.primal(shift_atom)
    reads = [roll.id] + ([shift_atom.name] if shift_atom.kind == "local" else [])
    tangent = ast.Call(func=roll, args=[rw.name_node(rw.dnames[x.name]), shift,
                                        ast.Constant(-1)], keywords=[])
    primal = ast.Call(func=roll, args=[rw.name_node(x.name), shift], keywords=[])
    return [Assign([target], primal, PRIMAL, [x.name] + reads),
            Assign([rw.dnames[target]], tangent, TANGENT, [rw.dnames[x.name]] + reads)]


def _reshaped(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """`x.reshape(a, b, ...)` of a split vector (ints): the tangent's last axis split
    alike, `dx.reshape(dx.shape[:-1] + (a, b, ...))`. Splitting one axis never copies,
    so both are views of their operands, as the rule's are (rules/shapes.py)."""
    x = _split_operand(rw, line, target)
    if x is None:
        return None
    sizes = [a for a, _ in line.args[1:]]
    reads = [a.name for a in sizes if a.kind == "local"]
    dx = rw.dnames[x.name]
    primal = ast.Call(func=ast.Attribute(value=rw.name_node(x.name), attr="reshape",
                                         ctx=LOAD), args=[rw.primal(a) for a in sizes],
                      keywords=[])
    batch = ast.Subscript(value=ast.Attribute(value=rw.name_node(dx), attr="shape", ctx=LOAD),
                          slice=ast.Slice(upper=ast.Constant(-1)), ctx=LOAD)
    shape = ast.BinOp(left=batch, op=ast.Add(),
                      right=ast.Tuple(elts=[rw.primal(a) for a in sizes], ctx=LOAD))
    tangent = ast.Call(func=ast.Attribute(value=rw.name_node(dx), attr="reshape", ctx=LOAD),
                       args=[shape], keywords=[])
    return [Assign([target], primal, PRIMAL, [x.name] + reads),
            Assign([rw.dnames[target]], tangent, TANGENT, [dx] + reads)]


def _indexed(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """`x[k]` of a split float array, k slices or an int: the tangent's same part."""
    if target is None or rw.kinds.get(target) != SPLIT or \
            not passes_tangent(line, rw.value_kinds):
        return None
    (x, _), (key, _) = line.args
    causes = _source(rw, x)
    array, index = operand_kind(x, rw.value_kinds), operand_kind(key, rw.value_kinds)
    if causes is None or (index != INT and key.kind != "local"):
        return None
    rank = int(array[1])
    count = 1 if index[0] in ("slice", "int") else int(index[1])
    if count > rank:
        return None
    rw.needs_tangents |= causes  # (the guard checks that those parameters have one)
    k = rw.primal(key)
    reads = [key.name] if key.kind == "local" else []
    dx = rw.name_node(rw.dnames[x.name])
    if index == INT and rank == 1:  # (a number: a copy of the batch, as the rule's)
        tangent: ast.expr = ast.Call(
            func=ast.Attribute(value=dx, attr="take", ctx=LOAD), args=[k],
            keywords=[ast.keyword(arg="axis", value=ast.Constant(-1))])
    else:
        tangent = ast.Subscript(value=dx, slice=tangent_key(k, index, rank), ctx=LOAD)
    return [Assign([target], ast.Subscript(value=rw.name_node(x.name), slice=k, ctx=LOAD),
                   PRIMAL, [x.name] + reads),
            Assign([rw.dnames[target]], tangent, TANGENT, [rw.dnames[x.name]] + reads)]


def tangent_key(key: ast.expr, index: Kind, rank: int) -> ast.expr:
    """The index into a tangent, batched or not, of what `key` (of kind `index`: an int,
    a slice or a tuple of slices) selects from a float array of `rank` axes:
    `(..., key, :, ...)`, the tuple's slices spliced in at run time."""
    count = int(index[1]) if index[0] == "slices" else 1
    rest = [ast.Slice() for _ in range(rank - count)]
    if index[0] != "slices":
        return ast.Tuple(elts=[ast.Constant(Ellipsis), key] + rest, ctx=LOAD)
    spliced = ast.BinOp(left=ast.Tuple(elts=[ast.Constant(Ellipsis)], ctx=LOAD),
                        op=ast.Add(), right=key)
    if not rest:
        return spliced
    return ast.BinOp(left=spliced, op=ast.Add(), right=ast.Tuple(elts=rest, ctx=LOAD))


def reduced(rw: Any, line: Line, target: Optional[str]) -> Optional[List[Record]]:
    """`np.sum(x)`, `np.mean(x)` (or the methods) of a split float array of rank r:
    `x.sum()`, and the tangent's last r axes reduced, `dx.sum(axis=-1)` for a vector
    (a number's batch, or a number where dx has no batch axis); None for other lines."""
    method = _REDUCTIONS.get(getattr(line.template, "name", None))
    if method is None or target is None or rw.kinds.get(target) != SPLIT or \
            len(line.operands) != 1:
        return None
    x = line.operands[0]
    causes, array = _source(rw, x), operand_kind(x, rw.value_kinds)
    if causes is None or array[0] != "array" or int(array[1]) < 1:
        return None
    rw.needs_tangents |= causes
    rank = int(array[1])
    axes = ast.Constant(-1) if rank == 1 else ast.Tuple(
        elts=[ast.Constant(-i) for i in range(rank, 0, -1)], ctx=LOAD)
    primal = ast.Call(func=ast.Attribute(value=rw.name_node(x.name), attr=method, ctx=LOAD),
                      args=[], keywords=[])
    dx = rw.dnames[x.name]
    tangent = ast.Call(func=ast.Attribute(value=rw.name_node(dx), attr=method, ctx=LOAD),
                       args=[], keywords=[ast.keyword(arg="axis", value=axes)])
    return [Assign([target], primal, PRIMAL, [x.name]),
            Assign([rw.dnames[target]], tangent, TANGENT, [dx])]
