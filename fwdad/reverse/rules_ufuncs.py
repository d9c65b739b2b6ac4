"""Reverse rules for NumPy's ufuncs: one table row per ufunc, from its derivatives.

A unary row is f'(x) written in terms of x and y = f(x): the pullback is ct * f'(x). A
binary row is its two partial derivatives in terms of a, b and y. Rows are written here
from the math, independently of the forward table, so that the dot-product test of
each row against forward mode is a real check. Every ufunc (these, the operators' ufuncs
in rules_scalar and the piecewise-constant ones) also accepts `out=`: the result is
written into `out` the way `out[...] = result` is (a VarMat saves and restores what it
overwrites), which is how NumPy defines `out`.
"""
from __future__ import annotations

import math
import operator
from typing import Callable

import numpy as np

from fwdad.errors import FwdadError, describe
from fwdad.reverse.registry import _RRULES, get_rrule, is_tracked, nondiff_rrule, rrule
from fwdad.rules import ufuncs as forward_ufuncs
from fwdad.rules.branch_cuts import cut_checked

LN2, LN10 = math.log(2.0), math.log(10.0)

UNARY = {
    # ---- trigonometric and hyperbolic ----
    np.sin: lambda x, y: np.cos(x),
    np.cos: lambda x, y: -np.sin(x),
    np.tan: lambda x, y: 1.0 + y * y,
    np.arcsin: lambda x, y: 1.0 / np.sqrt(1.0 - x * x),
    np.arccos: lambda x, y: -1.0 / np.sqrt(1.0 - x * x),
    np.arctan: lambda x, y: 1.0 / (1.0 + x * x),
    np.sinh: lambda x, y: np.cosh(x),
    np.cosh: lambda x, y: np.sinh(x),
    np.tanh: lambda x, y: 1.0 - y * y,
    np.arcsinh: lambda x, y: 1.0 / np.sqrt(x * x + 1.0),
    np.arccosh: lambda x, y: 1.0 / (np.sqrt(x - 1.0) * np.sqrt(x + 1.0)),  # (complex:
    # sqrt(x * x - 1) has the wrong sign where Re x < 0)
    np.arctanh: lambda x, y: 1.0 / (1.0 - x * x),
    np.deg2rad: lambda x, y: math.pi / 180.0,
    np.rad2deg: lambda x, y: 180.0 / math.pi,
    np.radians: lambda x, y: math.pi / 180.0,
    np.degrees: lambda x, y: 180.0 / math.pi,
    # ---- exponential and logarithmic ----
    np.exp: lambda x, y: y,
    np.exp2: lambda x, y: y * LN2,
    np.expm1: lambda x, y: y + 1.0,
    np.log: lambda x, y: 1.0 / x,
    np.log2: lambda x, y: 1.0 / (x * LN2),
    np.log10: lambda x, y: 1.0 / (x * LN10),
    np.log1p: lambda x, y: 1.0 / (1.0 + x),
    # ---- powers and magnitudes (|x| at 0: derivative 0) ----
    np.sqrt: lambda x, y: 0.5 / y,
    np.cbrt: lambda x, y: 1.0 / (3.0 * y * y),
    np.square: lambda x, y: 2.0 * x,
    np.reciprocal: lambda x, y: -y * y,
    np.fabs: lambda x, y: np.sign(x),
}


def _log_base(a, y):
    """log of float_power's base: of |a| on real values (a power of a negative base is
    NaN there), the principal log of a complex one (as NumPy's power computes y)."""
    return np.log(np.asarray(a, dtype=complex)) if np.iscomplexobj(y) else np.log(np.abs(a))


def _picks(first: Callable) -> tuple:
    """maximum/minimum and kin: the input the output came from (ties: the first)."""
    return (lambda a, b, y: first(a, b), lambda a, b, y: ~first(a, b))


BINARY = {
    np.float_power: (lambda a, b, y: b * np.float_power(a, b - 1.0),
                     lambda a, b, y: np.where(y == 0.0, 0.0, y * _log_base(a, y))),
    np.remainder: (lambda a, b, y: 1.0, lambda a, b, y: -np.floor_divide(a, b)),
    np.fmod: (lambda a, b, y: 1.0, lambda a, b, y: -np.trunc(a / b)),
    np.arctan2: (lambda a, b, y: b / (a * a + b * b), lambda a, b, y: -a / (a * a + b * b)),
    np.hypot: (lambda a, b, y: a / y, lambda a, b, y: b / y),
    np.logaddexp: (lambda a, b, y: np.exp(a - y), lambda a, b, y: np.exp(b - y)),
    np.logaddexp2: (lambda a, b, y: np.exp2(a - y), lambda a, b, y: np.exp2(b - y)),
    np.copysign: (lambda a, b, y: np.sign(a) * np.copysign(1.0, b), lambda a, b, y: 0.0),
    np.ldexp: (lambda a, i, y: np.ldexp(1.0, i), lambda a, i, y: 0.0),
    np.nextafter: (lambda a, b, y: 1.0, lambda a, b, y: 0.0),  # a moved by one ulp
    np.maximum: _picks(lambda a, b: np.asarray(a >= b) | np.isnan(a)),
    np.minimum: _picks(lambda a, b: np.asarray(a <= b) | np.isnan(a)),
    np.fmax: _picks(lambda a, b: np.asarray(a >= b) | np.isnan(b)),
    np.fmin: _picks(lambda a, b: np.asarray(a <= b) | np.isnan(b)),
}


def unary_rrule(ufunc: np.ufunc, derivative: Callable) -> None:
    def rule(x, **kwargs):
        out = ufunc(x, **kwargs)
        return out, lambda ct: (ct * derivative(x, out),)
    rule.__name__ = f"_{ufunc.__name__}"
    rrule(ufunc)(rule)


def binary_rrule(ufunc: np.ufunc, d1: Callable, d2: Callable) -> None:
    def rule(a, b, **kwargs):
        out = ufunc(a, b, **kwargs)
        return out, lambda ct: (lambda: ct * d1(a, b, out), lambda: ct * d2(a, b, out))
    rule.__name__ = f"_{ufunc.__name__}"
    rrule(ufunc)(rule)


UNARY.update(cut_checked(UNARY))  # (complex arguments on a branch cut: refused)
for _ufunc, _derivative in UNARY.items():
    unary_rrule(_ufunc, _derivative)
for _ufunc, (_d1, _d2) in BINARY.items():
    binary_rrule(_ufunc, _d1, _d2)


@rrule(np.modf)
def _modf(x):
    """(fractional part, integral part): only the fractional part moves with x."""
    out = np.modf(x)
    return out, lambda ct: (ct[0],)


@rrule(np.divmod)
def _divmod(a, b):
    """(floor(a / b), a - floor(a / b) * b): only the remainder moves."""
    out = np.divmod(a, b)
    return out, lambda ct: (ct[1], lambda: -ct[1] * out[0])


nondiff_rrule(*forward_ufuncs.NONDIFF)
# (np.sign: rules_complex_ufuncs, constant on real values but not on complex ones)


# ---- elementwise selection: clip and where ----------------------------------------------
@rrule(np.clip, np.ndarray.clip)
def _clip(x, a_min=None, a_max=None, **kwargs):
    """clip = minimum(maximum(x, a_min), a_max); at a tie, the cotangent goes to x."""
    a_min, a_max = kwargs.pop("min", a_min), kwargs.pop("max", a_max)
    low, high = _clip_picks(x, a_min, a_max)
    return np.clip(x, a_min, a_max, **kwargs), lambda ct: (
        ct * (low & high), lambda: ct * (~low & high), lambda: ct * ~high)


def _clip_picks(x, a_min, a_max) -> tuple:
    """Where maximum(x, a_min) took x, and where minimum(that, a_max) took that."""
    low = np.True_ if a_min is None else np.asarray(x >= a_min) | np.isnan(x)
    y = x if a_min is None else np.maximum(x, a_min)
    return low, np.True_ if a_max is None else np.asarray(y <= a_max) | np.isnan(y)


@rrule(np.where)
def _where(condition, x, y):
    """where(c, x, y): the cotangent goes to x where c holds, to y elsewhere."""
    mask = np.asarray(condition, dtype=bool)
    return np.where(mask, x, y), lambda ct: (None, lambda: ct * mask, lambda: ct * ~mask)


# ---- complex parts: real-linear, transposed for Re(ct * t) (docs/complex.md) -----------
@rrule(np.real)
def _real(x):
    """Re(ct * Re t) = Re(ct * t) for a real ct: the cotangent passes as it is."""
    return np.real(x), lambda ct: (ct,)


@rrule(np.imag)
def _imag(x):
    """ct * Im t = Re(-i ct * t); the imaginary part of a real value is zero."""
    return np.imag(x), lambda ct: (-1j * ct if np.iscomplexobj(x) else None,)


@rrule(np.conjugate)
def _conjugate(x, **kwargs):
    """Re(ct * conj t) = Re(conj(ct) * t)."""
    return np.conjugate(x, **kwargs), lambda ct: (np.conjugate(ct),)


# ---- out=: the result is written into `out` as `out[...] = result` is ------------------------
def with_out(ufunc: np.ufunc, call: Callable) -> Callable:
    def rule(*args, out=None, **kwargs):
        args, outs = args[:ufunc.nin], args[ufunc.nin:] or out
        if outs is None:
            return call(*args, **kwargs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        if not any(is_tracked(a) for a in (*args, *outs)):
            return ufunc(*args, out=outs if len(outs) > 1 else outs[0], **kwargs)
        if "where" in kwargs:
            raise FwdadError(f"{describe(ufunc)}: out= together with where= is not "
                             f"supported in reverse mode; write `r = np.where(mask, "
                             f"f(x), out)` instead.")
        result = call(*args, **kwargs)
        results = result if ufunc.nout > 1 else (result,)
        for target, value in zip(outs, results):
            get_rrule(operator.setitem)(target, Ellipsis, value)
        return outs if ufunc.nout > 1 else outs[0]
    rule.__name__ = f"_{ufunc.__name__}_out"
    return rule


def accept_out(ufuncs) -> None:
    """The rules of `ufuncs` learn `out=` (each ufunc once)."""
    for ufunc in ufuncs:
        entry = _RRULES[ufunc]
        entry.callable = with_out(ufunc, entry.callable)


accept_out([entry.primal for entry in list(_RRULES.values())
            if isinstance(entry.primal, np.ufunc)])
