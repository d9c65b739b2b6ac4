"""The symbolic zero of templates: the tangent of an operand that has none.

    dx * y + x * dy,  dy = ZERO    ->    dx * y
`zeroed` puts it in place of names, `simplify` folds it away (forward/optimizer/inline.py).
"""
from __future__ import annotations

import ast
import copy

from fwdad.astwalk import walk
from fwdad.forward.transform.astbuild import LOAD

ZERO = "\0zero"


def zeroed(expr: ast.expr, zeros: tuple) -> ast.expr:
    """A copy of `expr` with the symbolic zero in place of the names `zeros`."""
    out = copy.deepcopy(expr)
    for node in walk(out):
        if type(node) is ast.Name and node.id in zeros:
            node.id = ZERO
    return out


def is_zero(node: ast.AST) -> bool:
    return type(node) is ast.Name and node.id == ZERO


def simplify(node: ast.expr) -> ast.expr:
    """Fold the symbolic zero: 0 + a = a, a - 0 = a, 0 - a = -a, 0 * a = a * 0 = 0,
    0 / a = 0, -0 = 0, f(0) = 0 for the linear maps templates apply to tangents."""
    if isinstance(node, ast.BinOp):
        left, right = simplify(node.left), simplify(node.right)
        op = type(node.op)
        if op is ast.Add and (is_zero(left) or is_zero(right)):
            return right if is_zero(left) else left
        if op is ast.Sub and is_zero(right):
            return left
        if op is ast.Sub and is_zero(left):
            return ast.UnaryOp(op=ast.USub(), operand=right)
        if is_zero(left) or (is_zero(right) and op in (ast.Mult, ast.MatMult)):
            return zero()
        return ast.BinOp(left=left, op=node.op, right=right)
    if isinstance(node, ast.UnaryOp):
        operand = simplify(node.operand)
        return zero() if is_zero(operand) else ast.UnaryOp(op=node.op, operand=operand)
    if isinstance(node, ast.Call):
        args = [simplify(a) for a in node.args]
        return zero() if any(map(is_zero, args)) else ast.Call(
            func=node.func, args=args, keywords=node.keywords)
    if isinstance(node, ast.IfExp):
        body, orelse = simplify(node.body), simplify(node.orelse)
        return zero() if is_zero(body) or is_zero(orelse) else ast.IfExp(
            test=node.test, body=body, orelse=orelse)
    return node


def zero() -> ast.Name:
    return ast.Name(ZERO, LOAD)
