"""Reverse rules for elementwise functions: operators and their ufuncs, `math`, builtins
(the other NumPy ufuncs are rows of rules_ufuncs).

A pure rule returns the output and its pullback; cotangents of broadcast arguments are
summed back to their shapes by the wrapper, so binary rules read like the math.
`_unary(fn, derivative)` is one table row: the pullback is `ct * derivative(x, fn(x))`.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Callable

import numpy as np

from fwdad.reverse.registry import rrule, unbroadcast
from fwdad.rules.ieee import divide
from fwdad.rules.operators import pow_base_term, pow_exponent_term


# ---- arithmetic (operators and their ufuncs) -----------------------------------------
@rrule(operator.add, np.add)
def _add(x, y):
    return x + y, lambda ct: (ct, ct)


@rrule(operator.sub, np.subtract)
def _sub(x, y):
    return x - y, lambda ct: (ct, lambda: -unbroadcast(ct, np.shape(y)))


@rrule(operator.mul, np.multiply)
def _mul(x, y):
    return x * y, lambda ct: (lambda: ct * y, lambda: ct * x)


@rrule(operator.truediv, np.true_divide)
def _truediv(x, y):
    out = x / y
    return out, lambda ct: (lambda: _read(ct, lambda: ct / y),
                            lambda: _read(ct, lambda: -ct * out / y))


def _read(ct, term):
    """`term()`, but 0 where ct is 0: an element of the output that nothing reads
    passes nothing back, even where its partial is infinite (a / [1.0, 0.0] of which
    only [0] is read: forward mode drops that tangent too; tests/language, "with:
    managers from C")."""
    with np.errstate(invalid="ignore", divide="ignore"):
        value = term()
    if np.ndim(value) == 0:
        return value if value == value or ct != 0 else 0.0
    return np.where(ct == 0, 0.0, value) if np.isnan(value).any() else value


def _power(fn: Callable) -> Callable:
    def rule(x, y):
        out = fn(x, y)
        return out, lambda ct: (lambda: _pow_base(x, y, ct),
                                lambda: pow_exponent_term(x, out, ct))
    rule.__name__ = f"_{fn.__name__}"
    return rule


def _pow_base(x, y, ct):
    """y * x**(y-1) * ct, with the common square done without a power."""
    return 2.0 * x * ct if type(y) in (int, float) and y == 2 else pow_base_term(x, y, ct)


pow_base = _pow_base  # (public: a reverse schedule template, static_templates.py)
rrule(operator.pow, np.power, builtins.pow)(_power(operator.pow))
rrule(math.pow)(_power(math.pow))


@rrule(operator.mod)
def _mod(x, y):
    """x % y = x - floor(x / y) * y."""
    return x % y, lambda ct: (ct, -ct * (x // y))


@rrule(operator.neg, np.negative)
def _neg(x):
    return -x, lambda ct: (-ct,)


@rrule(operator.pos, np.positive)
def _pos(x):
    return +x, lambda ct: (ct,)


@rrule(operator.abs, builtins.abs, np.absolute)
def _abs(x):
    """d|x| = Re(conj(x) dx) / |x| for complex x: its cotangent is ct conj(x) / |x|
    (docs/complex.md); np.sign(x) is x / |x|, and 0 at 0 (the subgradient)."""
    if np.iscomplexobj(x):
        return abs(x), lambda ct: (ct * np.conjugate(np.sign(x)),)
    return abs(x), lambda ct: (ct * np.sign(x),)


@rrule(builtins.float)
def _float(x):
    return float(x), lambda ct: (ct,)


# ---- functions of one argument: d fn(x) = derivative(x, fn(x)) -----------------------
def _unary(fn: Callable, derivative: Callable) -> None:
    def rule(x):
        out = fn(x)
        return out, lambda ct: (ct * derivative(x, out),)
    rule.__name__ = f"_{fn.__name__}"
    rrule(fn)(rule)


_unary(math.sin, lambda x, y: math.cos(x))
_unary(math.cos, lambda x, y: -math.sin(x))
_unary(math.tan, lambda x, y: 1.0 + y * y)
_unary(math.sinh, lambda x, y: math.cosh(x))
_unary(math.cosh, lambda x, y: math.sinh(x))
_unary(math.tanh, lambda x, y: 1.0 - y * y)
_unary(math.exp, lambda x, y: y)
_unary(math.expm1, lambda x, y: y + 1.0)
_unary(math.log1p, lambda x, y: 1.0 / (1.0 + x))
_unary(math.sqrt, lambda x, y: divide(0.5, y))  # (inf at 0: fwdad/rules/ieee.py)
_unary(math.asin, lambda x, y: divide(1.0, math.sqrt(1.0 - x * x)))
_unary(math.acos, lambda x, y: divide(-1.0, math.sqrt(1.0 - x * x)))
_unary(math.atan, lambda x, y: 1.0 / (1.0 + x * x))
_unary(math.asinh, lambda x, y: 1.0 / math.sqrt(x * x + 1.0))
_unary(math.acosh, lambda x, y: divide(1.0, math.sqrt(x * x - 1.0)))
_unary(math.atanh, lambda x, y: 1.0 / (1.0 - x * x))
_unary(math.degrees, lambda x, y: 180.0 / math.pi)
_unary(math.radians, lambda x, y: math.pi / 180.0)
_unary(math.log2, lambda x, y: 1.0 / (x * math.log(2.0)))
_unary(math.log10, lambda x, y: 1.0 / (x * math.log(10.0)))
_unary(math.fabs, lambda x, y: math.copysign(1.0, x))
_unary(math.erf, lambda x, y: 2.0 / math.sqrt(math.pi) * math.exp(-x * x))
_unary(math.erfc, lambda x, y: -2.0 / math.sqrt(math.pi) * math.exp(-x * x))
_unary(math.lgamma, lambda x, y: _digamma(x))
_unary(math.gamma, lambda x, y: y * _digamma(x))
if hasattr(math, "exp2"):
    _unary(math.exp2, lambda x, y: y * math.log(2.0))
if hasattr(math, "cbrt"):
    _unary(math.cbrt, lambda x, y: divide(1.0, 3.0 * y * y))


def _digamma(x: float) -> float:
    from fwdad.rules.mathfns import _digamma as digamma
    return digamma(x)


# ---- math functions of two arguments ---------------------------------------------------
@rrule(math.log)
def _log(x, *base):
    if not base:
        return math.log(x), lambda ct: (ct / x,)
    log_b = math.log(base[0])
    out = math.log(x) / log_b
    return out, lambda ct: (ct / (x * log_b), -ct * out / (base[0] * log_b))


@rrule(math.atan2)
def _atan2(y, x):
    r2 = x * x + y * y
    return math.atan2(y, x), lambda ct: (divide(ct * x, r2), divide(-ct * y, r2))


@rrule(math.hypot)
def _hypot(*xs):
    out = math.hypot(*xs)
    return out, lambda ct: tuple(divide(ct * x, out) for x in xs)  # (at 0: nan, as norm)


@rrule(math.copysign)
def _copysign(x, y):
    same = math.copysign(1.0, x) == math.copysign(1.0, y)
    return math.copysign(x, y), lambda ct: (ct if same else -ct, 0.0)


@rrule(math.fmod)
def _fmod(x, y):
    """fmod(x, y) = x - trunc(x / y) * y."""
    return math.fmod(x, y), lambda ct: (ct, -ct * math.trunc(x / y))
