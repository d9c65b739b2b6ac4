"""Inlinable templates of the operators' frules: the rule's math as two expressions,
each kept on its rule's entry (the elementwise functions' templates are made from the
derivative table, rules/derivatives.py, where their rules are registered).

A template is written like the rule it stands for, on plain values: parameters come in
pairs (`x, dx`), and it returns the primal expression and the tangent expression; the
tangent may name the primal result `out`.

    @template(operator.mul)
    def _mul(x, dx, y, dy):
        return x * y, dx * y + x * dy

The optimizer (forward/optimizer/optimize.py) substitutes the call's operands, drops the terms
of operands that have no tangent (a symbolic zero), and binds the names the template
reads (`math.sin`, `np.cos`, `NoTangent`) as constants. A template is exactly its rule's
math for unbatched tangents of any type, NoTangent included; rules only differ in how
they align batched tangents, which the optimized rule leaves to the plain one.
"""
from __future__ import annotations

import ast
import inspect
import operator
import textwrap
from typing import Any, Callable

import numpy as np

from fwdad.rules import all as _all_rules  # noqa: F401  (templates go on their entries)
from fwdad.rules import derivatives
from fwdad.rules.derivative_code import math_twin_template
from fwdad.rules.ieee import divide, power
from fwdad.rules.operators import pow_base_term, pow_exponent_term
from fwdad.rules.registry import attach_template
from fwdad.rules.template import Template, reads_out
from fwdad.tangents import NoTangent

__all__ = ["Template", "template", "array_sum", "array_mean"]


def template(*primals: Any) -> Callable[[Callable], Callable]:
    """Parse the decorated function into a Template (as `fn.template`) and give it to
    the registered rules of `primals` (their entries' `template`)."""
    def register(fn: Callable) -> Callable:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
        names = [a.arg for a in tree.args.args]
        ret = tree.body[-1].value
        parsed = Template(fn.__name__, names[0::2], names[1::2], ret.elts[0], ret.elts[1],
                          fn.__globals__, reads_out(ret.elts[1]),
                          not any(getattr(p, "__module__", None) == "math" for p in primals))
        for primal in primals:
            attach_template(primal, parsed)
        fn.template = parsed
        return fn
    return register


# math functions whose rules are written by hand, with a row's one-argument template
for _row in derivatives.UNARY:
    _twin = math_twin_template(_row)
    if _twin is not None:
        attach_template(_row.inline_math, _twin)


# ---- arithmetic --------------------------------------------------------------------
@template(operator.add)
def _add(x, dx, y, dy):
    return x + y, dx + dy


@template(operator.sub)
def _sub(x, dx, y, dy):
    return x - y, dx - dy


@template(operator.mul)
def _mul(x, dx, y, dy):
    return x * y, dx * y + x * dy


@template(operator.truediv)
def _truediv(x, dx, y, dy):
    return x / y, (dx - out * dy) / y


# NumPy's functions of the same name compute as NumPy does, also on Python floats:
# np.true_divide(1.0, 0.0) is inf (1.0 / 0.0 raises), np.power(-8.0, 1/3) is nan
# (-8.0 ** (1/3) is complex), and the results are NumPy scalars.
@template(np.add)
def _np_add(x, dx, y, dy):
    return np.add(x, y), dx + dy


@template(np.subtract)
def _np_sub(x, dx, y, dy):
    return np.subtract(x, y), dx - dy


@template(np.multiply)
def _np_mul(x, dx, y, dy):
    return np.multiply(x, y), dx * y + x * dy


@template(np.true_divide)
def _np_truediv(x, dx, y, dy):
    return np.true_divide(x, y), divide(dx - out * dy, y)


@template(operator.neg)
def _neg(x, dx):
    return -x, -dx


@template(operator.pos)
def _pos(x, dx):
    return +x, dx


@template(operator.pow)  # (np.power: its ufunc rule, which computes as NumPy does)
def _pow(x, dx, y, dy):
    return x ** y, pow_base_term(x, y, dx) + pow_exponent_term(x, out, dy)


@template(operator.matmul)
def _matmul(x, dx, y, dy):
    return x @ y, dx @ y + x @ dy


@template(np.matmul)
def _np_matmul(x, dx, y, dy):
    return np.matmul(x, y), dx @ y + x @ dy


# ---- reductions (one positional argument) ---------------------------------------------
def array_sum(x: Any) -> Any:
    """np.sum(x): for a plain ndarray, its method, which is the very same reduction
    without np.sum's dispatch (a few microseconds, on small arrays most of the cost)."""
    return x.sum() if type(x) is np.ndarray else np.sum(x)


def array_mean(x: Any) -> Any:
    """np.mean(x): for a plain ndarray, its method (np.mean calls the same code)."""
    return x.mean() if type(x) is np.ndarray else np.mean(x)


@template(np.sum, np.ndarray.sum)
def _np_sum(x, dx):
    return array_sum(x), NoTangent if dx is NoTangent else array_sum(dx)


@template(np.mean, np.ndarray.mean)
def _np_mean(x, dx):
    return array_mean(x), NoTangent if dx is NoTangent else array_mean(dx)


# ---- x ** c for a literal c != 0 (the pow rule's c * x ** (c - 1) * dx) -------------
@template()
def pow_literal(x, dx, c, dc, c1, dc1):
    return x ** c, c * power(x, c1) * dx


@template()
def pow_two(x, dx, c, dc):
    return x ** c, c * x * dx
