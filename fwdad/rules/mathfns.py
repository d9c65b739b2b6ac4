"""Rules for the `math` module: every differentiable function, and the rest as
functions with no derivative.

Each rule is `Dual(f(x), f'(x) * dx)`; `_scalar` registers one from its derivative.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from fwdad.core.duals import iterate
from fwdad.dual import Dual
from fwdad.rules.ieee import divide
from fwdad.rules.operators import mul_rule as _mul
from fwdad.rules.operators import pow_base_term, pow_exponent_term
from fwdad.rules.registry import def_nondiff, frule
from fwdad.rules.unshared import own
from fwdad.tangents import NoTangent


def _scalar(fn: Callable, derivative: Callable) -> None:
    """Register `fn` with the rule d fn(x) = derivative(x, fn(x)) * dx."""
    def rule(x: Dual) -> Dual:
        out = fn(x.primal)
        return Dual(out, derivative(x.primal, out) * x.tangent)
    rule.__name__ = f"_{fn.__name__}"
    frule(fn)(rule)


# ---- trigonometric and hyperbolic --------------------------------------------------
_scalar(math.sin, lambda x, y: math.cos(x))
_scalar(math.cos, lambda x, y: -math.sin(x))
_scalar(math.tan, lambda x, y: 1.0 + y * y)
_scalar(math.asin, lambda x, y: divide(1.0, math.sqrt(1.0 - x * x)))
_scalar(math.acos, lambda x, y: divide(-1.0, math.sqrt(1.0 - x * x)))
_scalar(math.atan, lambda x, y: 1.0 / (1.0 + x * x))
_scalar(math.sinh, lambda x, y: math.cosh(x))
_scalar(math.cosh, lambda x, y: math.sinh(x))
_scalar(math.tanh, lambda x, y: 1.0 - y * y)
_scalar(math.asinh, lambda x, y: 1.0 / math.sqrt(x * x + 1.0))
_scalar(math.acosh, lambda x, y: divide(1.0, math.sqrt(x * x - 1.0)))
_scalar(math.atanh, lambda x, y: 1.0 / (1.0 - x * x))
_scalar(math.degrees, lambda x, y: 180.0 / math.pi)
_scalar(math.radians, lambda x, y: math.pi / 180.0)

# ---- exponential, logarithmic, powers -----------------------------------------------
_scalar(math.exp, lambda x, y: y)
_scalar(math.expm1, lambda x, y: y + 1.0)
_scalar(math.log1p, lambda x, y: 1.0 / (1.0 + x))
_scalar(math.log2, lambda x, y: 1.0 / (x * math.log(2.0)))
_scalar(math.log10, lambda x, y: 1.0 / (x * math.log(10.0)))
_scalar(math.sqrt, lambda x, y: divide(0.5, y))
_scalar(math.fabs, lambda x, y: math.copysign(1.0, x))
if hasattr(math, "exp2"):
    _scalar(math.exp2, lambda x, y: y * math.log(2.0))
if hasattr(math, "cbrt"):
    _scalar(math.cbrt, lambda x, y: divide(1.0, 3.0 * y * y))

# ---- special functions --------------------------------------------------------------
_scalar(math.erf, lambda x, y: 2.0 / math.sqrt(math.pi) * math.exp(-x * x))
_scalar(math.erfc, lambda x, y: -2.0 / math.sqrt(math.pi) * math.exp(-x * x))
_scalar(math.lgamma, lambda x, y: _digamma(x))
_scalar(math.gamma, lambda x, y: y * _digamma(x))


def _digamma(x: float) -> float:
    """psi(x): recurrence up to x >= 6, then the asymptotic series (error < 1e-12)."""
    if x <= 0 and x == int(x):
        return math.nan
    if x < 0.5:  # reflection
        return _digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 6.0:
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 / 132))))
    return shift + math.log(x) - 0.5 / x - series


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


@frule(math.atan2)
def _atan2(y: Dual, x: Dual) -> Dual:
    r2 = x.primal * x.primal + y.primal * y.primal
    return Dual(math.atan2(y.primal, x.primal),  # (at 0 / 0: nan, as np.arctan2's)
                divide(x.primal * y.tangent - y.primal * x.tangent, r2))


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
