"""Tangent expressions of the batched variant that are linear in one tangent, written as
that tangent times one coefficient of primals.

    _fw_dmul2 = 4.0 * du * _fw_sub1 + _fw_mul1 * -du
        ->  _fw_dmul2 = du * (_fw_sub1 * 4.0 - _fw_mul1)

Inlined templates and the values cleanup moves into their readers (optimizer/moves.py)
give sums of products in which one tangent appears several times: the product rule of
`4.0 * u * (1.0 - u)` above takes five passes over a batch of tangents (4.0 * du, its
product, -du, its product, their sum), each as large as the primal times the batch.
Collected, the coefficient is computed once without the batch, and the batch is
multiplied once (bench/sparse.py's 1-D residual: 25 of its pass's 100 us).

The rewrite applies to an expression made of +, -, *, / and unary signs, in which every
tangent is multiplied or divided by values with no tangent only, and those values are
float or int literals or locals whose kind is a float64 number or float64 array
(kinds.py): products of them are computed without the batch, in float64, and the
product with the tangent promotes as the original's did. Anything else (a call, an
attribute, a subscript, a second tangent, a product of two tangents) leaves the
expression as it is. The sums are reordered, so the result may differ from the
original in the last bits, as any reassociation does.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, Iterable, List, Optional, Set

import numpy as np

from fwdad.forward.optimizer.kinds import FLOAT
from fwdad.forward.optimizer.records import TANGENT, Assign, Block, Record
from fwdad.forward.transform.astbuild import LOAD

ONE = None  # the coefficient 1 (a tangent alone)
Form = Dict[str, Optional[ast.expr]]  # tangent name -> coefficient (ONE: itself)
_SUMS = (ast.Add, ast.Sub)
# Note: float64 values only. NumPy promotes a float32 array or scalar with a Python
# float to float32, so a coefficient of them would be rounded to float32 where the
# original multiplied each by a float64 tangent (`-(du * s) + f32 * du`: 2e-8 off).
_DOUBLE = np.dtype(np.float64)


def collected(records: List[Record], tangents: Set[str], kinds: Dict[str, Any]
              ) -> List[Record]:
    """`records` with each TANGENT that is linear in one tangent (in `tangents`, with
    more than one operation on it) written as that tangent times its coefficient, whose
    names are locals of float kinds (`kinds`)."""
    for record in _walk(records):
        if isinstance(record, Assign) and record.role is TANGENT and \
                len(record.targets) == 1:
            better = _factored(record.value, tangents, kinds)
            if better is not None:
                record.value = better
    return records


def _walk(records: List[Record]) -> Iterable[Record]:
    for record in records:
        yield record
        if isinstance(record, Block):
            yield from _walk(record.body)
            yield from _walk(record.orelse)


def _factored(value: ast.expr, tangents: Set[str], kinds: Dict[str, Any]
              ) -> Optional[ast.expr]:
    """`t * coefficient` for `value`, or None (see the module docstring)."""
    reader = _Linear(tangents, kinds)
    form = reader.form(value)
    if form is None or len(form) != 1 or _batched_operations(value, tangents) < 2:
        return None
    (name, coefficient), = form.items()
    if coefficient is ONE:  # (`+(+du)`: the tangent itself would alias it, not copy it)
        return None
    return ast.BinOp(left=ast.Name(id=name, ctx=LOAD), op=ast.Mult(), right=coefficient)


class _Linear:
    """The linear form of an expression in the tangents, or None where it is not one of
    the module docstring's."""

    def __init__(self, tangents: Set[str], kinds: Dict[str, Any]) -> None:
        self.tangents, self.kinds = tangents, kinds

    def form(self, node: ast.expr) -> Optional[Form]:
        if isinstance(node, ast.Name):
            return {node.id: ONE} if node.id in self.tangents else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self.form(node.operand)
            if inner is None or isinstance(node.op, ast.UAdd):
                return inner
            return {t: _negated(c) for t, c in inner.items()}
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        return None

    def _binary(self, node: ast.BinOp) -> Optional[Form]:
        op = type(node.op)
        if op in _SUMS:
            left, right = self.form(node.left), self.form(node.right)
            if left is None or right is None:
                return None
            out = dict(left)
            for t, c in right.items():
                c = c if op is ast.Add else _negated(c)
                out[t] = c if t not in out else _sum(out[t], c)
            return out
        if op is ast.Mult and self.plain(node.left):
            inner = self.form(node.right)
            return None if inner is None else {
                t: _product(node.left, c) for t, c in inner.items()}
        if op in (ast.Mult, ast.Div) and self.plain(node.right):
            inner = self.form(node.left)
            return None if inner is None else {
                t: _scaled(c, op, node.right) for t, c in inner.items()}
        return None

    def plain(self, node: ast.expr) -> bool:
        """A value with no tangent that the coefficient may hold: numbers, float locals,
        and +, -, *, / and signs of them."""
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, ast.Name):
            kind = self.kinds.get(node.id)
            return node.id not in self.tangents and kind is not None and (
                kind == FLOAT or (kind[0] in ("array", "npfloat") and
                                  kind[-1] == _DOUBLE))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.plain(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                                ast.Div)):
            return self.plain(node.left) and self.plain(node.right)
        return False


def _negated(c: Optional[ast.expr]) -> ast.expr:
    if c is ONE:
        return ast.Constant(-1)
    if isinstance(c, ast.Constant):
        return ast.Constant(-c.value)
    return ast.UnaryOp(op=ast.USub(), operand=c)


def _sum(a: Optional[ast.expr], b: Optional[ast.expr]) -> ast.expr:
    a = ast.Constant(1) if a is ONE else a
    if isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.USub):
        return ast.BinOp(left=a, op=ast.Sub(), right=b.operand)
    if isinstance(b, ast.Constant) and b.value == -1:
        return ast.BinOp(left=a, op=ast.Sub(), right=ast.Constant(1))
    return ast.BinOp(left=a, op=ast.Add(), right=ast.Constant(1) if b is ONE else b)


def _product(factor: ast.expr, c: Optional[ast.expr]) -> ast.expr:
    if c is ONE or (isinstance(c, ast.Constant) and c.value == 1):
        return factor
    if isinstance(c, ast.Constant) and c.value == -1:  # (a negated tangent)
        return ast.UnaryOp(op=ast.USub(), operand=factor)
    return ast.BinOp(left=factor, op=ast.Mult(), right=c)


def _scaled(c: Optional[ast.expr], op: type, factor: ast.expr) -> ast.expr:
    if c is ONE:
        return factor if op is ast.Mult else ast.BinOp(
            left=ast.Constant(1.0), op=ast.Div(), right=factor)
    if op is ast.Mult:
        return _product(factor, c)
    return ast.BinOp(left=c, op=ast.Div(), right=factor)


def _batched_operations(node: ast.expr, tangents: Set[str]) -> int:
    """How many operations of `node` read a tangent (each a pass over the batch)."""
    count = 0
    for sub in ast.walk(node):
        if isinstance(sub, (ast.BinOp, ast.UnaryOp)) and any(
                isinstance(n, ast.Name) and n.id in tangents for n in ast.walk(sub)):
            count += 1
    return count
