"""Reverse rules for elementwise functions: operators and their ufuncs, `math`, builtins
(the other NumPy ufuncs are rows of rules_ufuncs).

A pure rule returns the output and its pullback; cotangents of broadcast arguments are
summed back to their shapes by the wrapper, so binary rules read like the math.
The math functions of one argument (and atan2) are rows of the derivative table
(fwdad/rules/derivatives.py): the pullback is ct times each partial.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Callable

import numpy as np

from fwdad.reverse.adjoints import unbroadcast
from fwdad.reverse.registry import rrule
from fwdad.rules import derivatives
from fwdad.rules.derivative_code import rrule_of
from fwdad.rules.ieee import over_norm, unread_zero
from fwdad.rules.operators import pow_base_term, pow_exponent_term
from fwdad.rules.ufuncs import mantissa_tangent


# ---- arithmetic (operators and their ufuncs) -----------------------------------------
@rrule(operator.add, np.add)
def _add(x, y):
    return x + y, lambda ct: (ct, ct)


@rrule(operator.sub, np.subtract)
def _sub(x, y):
    return x - y, lambda ct: (ct, lambda: -unbroadcast(ct, np.shape(y)))


@rrule(operator.mul, np.multiply)
def _mul(x, y):
    return x * y, lambda ct: (lambda: unread_zero(ct, ct * y), lambda: unread_zero(ct, ct * x))


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
        return unread_zero(ct, term())


def _power(fn: Callable) -> Callable:
    def rule(x, y):
        out = fn(x, y)
        return out, lambda ct: (lambda: unread_zero(ct, _pow_base(x, y, ct)),
                                lambda: unread_zero(ct, pow_exponent_term(x, out, ct)))
    rule.__name__ = f"_{fn.__name__}"
    return rule


def _pow_base(x, y, ct):
    """y * x**(y-1) * ct, with the common square done without a power."""
    return 2.0 * x * ct if type(y) in (int, float) and y == 2 else pow_base_term(x, y, ct)


pow_base = _pow_base  # (public: a reverse schedule template, reverse_schedules/templates.py)
rrule(operator.pow, np.power, builtins.pow)(_power(operator.pow))
rrule(math.pow)(_power(math.pow))


@rrule(operator.mod)
def _mod(x, y):
    """x % y = x - floor(x / y) * y."""
    return x % y, lambda ct: (ct, -ct * (x // y))


@rrule(builtins.divmod)
def _divmod(x, y):
    """(x // y, x % y): only the remainder moves."""
    out = divmod(x, y)
    return out, lambda ct: (ct[1], -ct[1] * out[0])


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


@rrule(builtins.complex)
def _complex(real=0.0, imag=0.0):
    """complex(a, b) = a + 1j b: Re(ct (da + 1j db)) gives a the cotangent ct and b
    1j ct (a real variable keeps the real part: adjoints.accumulate)."""
    return complex(real, imag), lambda ct: (ct, 1j * ct)


# ---- functions of one argument: rows of the derivative table --------------------------
for _row in derivatives.UNARY + derivatives.BINARY:  # (math.atan2 among them)
    if _row.math is not None:
        rrule(_row.math)(rrule_of(_row, _row.math))


# ---- math functions of two arguments ---------------------------------------------------
@rrule(math.log)
def _log(x, *base):
    if not base:
        return math.log(x), lambda ct: (ct / x,)
    log_b = math.log(base[0])
    out = math.log(x) / log_b
    return out, lambda ct: (ct / (x * log_b), -ct * out / (base[0] * log_b))


@rrule(math.hypot)
def _hypot(*xs):
    out = math.hypot(*xs)
    return out, lambda ct: tuple(ct * over_norm(x, out) for x in xs)  # (at 0: 0, as norm)


@rrule(math.copysign)
def _copysign(x, y):
    same = math.copysign(1.0, x) == math.copysign(1.0, y)
    return math.copysign(x, y), lambda ct: (ct if same else -ct, 0.0)


@rrule(math.fmod)
def _fmod(x, y):
    """fmod(x, y) = x - trunc(x / y) * y."""
    return math.fmod(x, y), lambda ct: (ct, -ct * math.trunc(x / y))


@rrule(math.remainder)
def _remainder(x, y):
    """remainder(x, y) = x - n y, n the integer nearest x / y."""
    out = math.remainder(x, y)
    nearest = round((x - out) / y) if math.isfinite(out) else 0
    return out, lambda ct: (ct, -ct * nearest)


# ---- exponent and mantissa: x = m 2^e, e an integer -------------------------------------
@rrule(math.ldexp)
def _ldexp(x, exponent):
    return math.ldexp(x, exponent), lambda ct: (math.ldexp(ct, exponent), None)


@rrule(math.frexp)
def _frexp(x):
    out = math.frexp(x)
    return out, lambda ct: (float(mantissa_tangent(x, out[1], ct[0])),)


@rrule(math.modf)
def _modf(x):
    return math.modf(x), lambda ct: (ct[0],)


@rrule(math.nextafter)
def _nextafter(x, y, *steps):
    return math.nextafter(x, y, *steps), lambda ct: (ct, 0.0) + (None,) * len(steps)
