"""Rules for the `math` module: every differentiable function, and the rest as
functions with no derivative.

The functions of one argument (and atan2) are rows of the derivative table
(rules/derivatives.py), shared with NumPy's ufuncs; the others are written here.
"""
from __future__ import annotations

import math

import numpy as np

from fwdad.core.duals import iterate
from fwdad.dual import Dual
from fwdad.rules import derivatives
from fwdad.rules.derivative_code import inline_template, math_frule
from fwdad.rules.operators import mul_rule as _mul
from fwdad.rules.operators import pow_base_term, pow_exponent_term
from fwdad.rules.operators import sub_rule as _sub
from fwdad.rules.registry import def_nondiff, frule
from fwdad.rules.unshared import own
from fwdad.tangents import NoTangent

# ---- functions of one argument, and atan2: rows of the derivative table -------------
for _row in derivatives.UNARY + derivatives.BINARY:
    if _row.math is not None:
        frule(_row.math, template=inline_template(_row, _row.math))(math_frule(_row))


# ---- functions of two arguments ------------------------------------------------------
@frule(math.log)
def _log(x: Dual, *base: Dual) -> Dual:
    """log(x) and log(x, base) = log(x) / log(base)."""
    if not base:
        return Dual(math.log(x.primal), x.tangent / x.primal)
    b = base[0]
    log_b = math.log(b.primal)
    out = math.log(x.primal) / log_b
    return Dual(out, (x.tangent / x.primal - out * b.tangent / b.primal) / log_b)


@frule(math.pow)
def _math_pow(x: Dual, y: Dual) -> Dual:
    out = math.pow(x.primal, y.primal)
    return Dual(out, pow_base_term(x.primal, y.primal, x.tangent)
                + pow_exponent_term(x.primal, out, y.tangent))


@frule(math.hypot)
def _hypot(*xs: Dual) -> Dual:
    out = math.hypot(*(x.primal for x in xs))
    if out == 0:  # the 2-norm at 0, as np.linalg.norm's
        return Dual(out, _norm_at_zero([x.tangent for x in xs if x.tangent is not NoTangent]))
    return Dual(out, sum((x.primal / out) * x.tangent for x in xs))


def _norm_at_zero(tangents: list):
    """hypot(h t) = |h| hypot(t): 0 along t = 0, else no derivative (nan)."""
    moved = sum(abs(t) for t in tangents)
    if isinstance(moved, np.ndarray):
        return np.where(moved == 0, 0.0, np.nan)
    return 0.0 if moved == 0 else math.nan


@frule(math.dist)
def _dist(p: Dual, q: Dual) -> Dual:
    """dist(p, q) = hypot(p[0] - q[0], p[1] - q[1], ...)."""
    out = math.dist(p.primal, q.primal)  # (and its errors: unequal lengths, say)
    return Dual(out, _hypot(*map(_sub, iterate(p), iterate(q))).tangent)


@frule(math.copysign)
def _copysign(x: Dual, y: Dual) -> Dual:
    out = math.copysign(x.primal, y.primal)
    same = math.copysign(1.0, x.primal) == math.copysign(1.0, y.primal)
    return Dual(out, own(x.tangent, x.tangent) if same else -x.tangent)  # a new number


@frule(math.fmod)
def _fmod(x: Dual, y: Dual) -> Dual:
    """fmod(x, y) = x - trunc(x / y) * y."""
    out = math.fmod(x.primal, y.primal)
    tangent = x.tangent - math.trunc(x.primal / y.primal) * y.tangent
    return Dual(out, own(tangent, x.tangent))  # (y with no tangent: dx itself)


@frule(math.fsum)
def _fsum(values: Dual) -> Dual:
    items = list(iterate(values))
    return Dual(math.fsum(d.primal for d in items), sum(d.tangent for d in items))


@frule(math.prod)
def _prod(values: Dual, *, start: Dual = None) -> Dual:
    total = Dual(1, NoTangent) if start is None else start
    for item in iterate(values):
        total = _mul(total, item)
    return total


# ---- no derivative ---------------------------------------------------------------------
def_nondiff(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
            math.isclose, math.factorial, math.comb, math.perm, math.gcd)
