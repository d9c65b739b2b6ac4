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
from fwdad.rules.ieee import over_norm
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
    """d hypot = sum(x_i dx_i) / hypot; at 0 the subgradient 0, as np.linalg.norm's."""
    out = math.hypot(*(x.primal for x in xs))
    return Dual(out, sum(over_norm(x.primal, out) * x.tangent for x in xs))


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


@frule(math.remainder)
def _remainder(x: Dual, y: Dual) -> Dual:
    """remainder(x, y) = x - n y, n the integer nearest x / y (ties to even)."""
    out = math.remainder(x.primal, y.primal)
    nearest = round((x.primal - out) / y.primal) if math.isfinite(out) else 0
    return Dual(out, own(x.tangent - nearest * y.tangent, x.tangent))


# ---- exponent and mantissa: x = m 2^e, e an integer -------------------------------------
def times_power_of_two(tangent, exponent: int):
    """tangent 2^exponent, exactly (2.0 ** exponent overflows where the product does
    not); a batch of tangents is an array."""
    if tangent is NoTangent:
        return NoTangent
    if isinstance(tangent, np.ndarray):
        return np.ldexp(tangent, exponent)
    return math.ldexp(tangent, exponent)


@frule(math.ldexp)
def _ldexp(x: Dual, exponent: int) -> Dual:
    return Dual(math.ldexp(x.primal, exponent), times_power_of_two(x.tangent, exponent))


@frule(math.frexp)
def _frexp(x: Dual) -> Dual:
    """(m, e) with x = m 2^e: m moves with x as x 2^-e (e is piecewise constant)."""
    mantissa, exponent = math.frexp(x.primal)
    if x.primal == 0:  # m jumps from 0 to 1/2 or more on either side: none unless dx is 0
        return Dual((mantissa, exponent), (_none_unless_zero(x.tangent), NoTangent))
    return Dual((mantissa, exponent), (times_power_of_two(x.tangent, -exponent), NoTangent))


def _none_unless_zero(tangent):
    if isinstance(tangent, np.ndarray):
        return np.where(tangent == 0, 0.0, np.nan)
    return tangent if tangent is NoTangent or tangent == 0 else math.nan


@frule(math.modf)
def _modf(x: Dual) -> Dual:
    """(fractional part, integral part), as np.modf: only the fractional part moves."""
    return Dual(math.modf(x.primal), (own(x.tangent, x.tangent), NoTangent))


@frule(math.nextafter)
def _nextafter(x: Dual, y: Dual, *steps: Dual) -> Dual:
    """x moved by a few ulps toward y: its tangent is x's, as np.nextafter's."""
    out = math.nextafter(x.primal, y.primal, *(s.primal for s in steps))
    return Dual(out, own(x.tangent, x.tangent))


# ---- no derivative ---------------------------------------------------------------------
def_nondiff(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
            math.isclose, math.factorial, math.comb, math.perm, math.gcd, math.lcm,
            math.isqrt, math.ulp)
