"""Reverse rules for NumPy's ufuncs: the rows of the derivative table
(fwdad/rules/derivatives.py), whose pullback is ct times each partial, and the ufuncs
written here (selections, float_power, modf, divmod, clip, where, complex parts). A row
here is two partial derivatives in terms of a, b and y. Every ufunc (these, the operators' ufuncs
in rules_scalar and the piecewise-constant ones) also accepts `out=`: the result is
written into `out` the way `out[...] = result` is (a VarMat saves and restores what it
overwrites), which is how NumPy defines `out`.
"""
from __future__ import annotations

import operator
from typing import Callable

import numpy as np

from fwdad.errors import FwdadError, describe
from fwdad.reverse.complex_parts import note_part
from fwdad.reverse.registry import _RRULES, get_rrule, nondiff_rrule, rrule
from fwdad.reverse.tracked import is_tracked
from fwdad.rules import derivatives
from fwdad.rules import ufuncs as forward_ufuncs
from fwdad.rules.branch_cuts import cut_checked
from fwdad.rules.derivative_code import rrule_of
from fwdad.rules.ieee import selected, unread_zero


def _log_base(a, y):
    """log of float_power's base: of |a| on real values (a power of a negative base is
    NaN there), the principal log of a complex one (as NumPy's power computes y)."""
    return np.log(np.asarray(a, dtype=complex)) if np.iscomplexobj(y) else np.log(np.abs(a))


# The binary ufuncs whose partials are not one expression each (the others are rows of
# the derivative table, fwdad/rules/derivatives.py).
BINARY = {
    np.float_power: (lambda a, b, y: b * np.float_power(a, b - 1.0),
                     lambda a, b, y: np.where(y == 0.0, 0.0, y * _log_base(a, y))),
}

# The selections: where the output is the first input's element (ties: the first input),
# the cotangent goes there, elsewhere to the second; heaviside's a is never taken (its
# partial is 0 wherever it has one), and b where a == 0.
# (NumPy's comparisons: a Python complex has no >=, NumPy orders complex values)
SELECTIONS = {
    np.maximum: lambda a, b: np.greater_equal(a, b) | np.isnan(a),
    np.minimum: lambda a, b: np.less_equal(a, b) | np.isnan(a),
    np.fmax: lambda a, b: np.greater_equal(a, b) | np.isnan(b),
    np.fmin: lambda a, b: np.less_equal(a, b) | np.isnan(b),
}


def unary_rrule(ufunc: np.ufunc, derivative: Callable) -> None:
    def rule(x, **kwargs):
        out = ufunc(x, **kwargs)
        return out, lambda ct: (unread_zero(ct, ct * derivative(x, out)),)
    rule.__name__ = f"_{ufunc.__name__}"
    rrule(ufunc)(rule)


def binary_rrule(ufunc: np.ufunc, d1: Callable, d2: Callable) -> None:
    def rule(a, b, **kwargs):
        out = ufunc(a, b, **kwargs)
        return out, lambda ct: (lambda: unread_zero(ct, ct * d1(a, b, out)),
                                lambda: unread_zero(ct, ct * d2(a, b, out)))
    rule.__name__ = f"_{ufunc.__name__}"
    rrule(ufunc)(rule)


def selection_rrule(ufunc: np.ufunc, first: Callable) -> None:
    """The cotangent selected, not multiplied by the mask (ieee.selected)."""
    def rule(a, b, **kwargs):
        out = ufunc(a, b, **kwargs)

        def pullback(ct):
            mask = first(a, b)
            return (lambda: selected(mask, ct), lambda: selected(~mask, ct))
        return out, pullback
    rule.__name__ = f"_{ufunc.__name__}"
    rrule(ufunc)(rule)


for _ufunc, (_d1, _d2) in BINARY.items():
    binary_rrule(_ufunc, _d1, _d2)
for _ufunc, _first in SELECTIONS.items():
    selection_rrule(_ufunc, _first)


@rrule(np.heaviside)
def _heaviside(a, b, **kwargs):
    """0 where a < 0, 1 where a > 0, b where a == 0: only b is taken, and only there."""
    return np.heaviside(a, b, **kwargs), lambda ct: (None, lambda: selected(
        np.equal(a, 0), ct))


_RULES = {row.numpy: rrule_of(row, row.numpy)
          for row in derivatives.UNARY + derivatives.BINARY if row.numpy is not None}
_RULES.update(cut_checked(_RULES))  # (complex arguments on a branch cut: refused)
for _ufunc, _rule in _RULES.items():
    rrule(_ufunc)(_rule)


@rrule(np.modf)
def _modf(x):
    """(fractional part, integral part): only the fractional part moves with x."""
    out = np.modf(x)
    return out, lambda ct: (ct[0],)


@rrule(np.frexp)
def _frexp(x):
    """(m, e) with x = m 2^e: only m moves, as x 2^-e."""
    out = np.frexp(x)
    return out, lambda ct: (forward_ufuncs.mantissa_tangent(x, out[1], ct[0]),)


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
        selected(low & high, ct), lambda: selected(~low & high, ct),
        lambda: selected(~high, ct))


def _clip_picks(x, a_min, a_max) -> tuple:
    """Where maximum(x, a_min) took x, and where minimum(that, a_max) took that."""
    low = np.True_ if a_min is None else np.asarray(x >= a_min) | np.isnan(x)
    y = x if a_min is None else np.maximum(x, a_min)
    return low, np.True_ if a_max is None else np.asarray(y <= a_max) | np.isnan(y)


@rrule(np.where)
def _where(condition, x, y):
    """where(c, x, y): the cotangent goes to x where c holds, to y elsewhere."""
    mask = np.asarray(condition, dtype=bool)
    return np.where(mask, x, y), lambda ct: (None, lambda: selected(mask, ct),
                                             lambda: selected(~mask, ct))


# ---- complex parts: real-linear, transposed for Re(ct * t) (docs/complex.md) -----------
@rrule(np.real)
def _real(x):
    """Re(ct * Re t) = Re(ct * t) for a real ct: the cotangent passes as it is."""
    return _read_only_part(np.real(x), x), lambda ct: (ct,)


@rrule(np.imag)
def _imag(x):
    """ct * Im t = Re(-i ct * t); the imaginary part of a real value is zero."""
    part = _read_only_part(np.imag(x), x)
    return part, lambda ct: (-1j * ct if np.iscomplexobj(x) else None,)


def _read_only_part(part, x):
    """The real or imaginary part of a complex array is a view of it, and a write
    through it would reach the complex variable's value but not its adjoint (the
    imaginary part's adjoint is minus a view: none can share it). The view is made
    read-only, and rules_arrays.assign refuses writes into it unless nothing in them
    depends on the arguments (test_complex.py,
    test_writes_through_complex_parts_are_refused)."""
    if type(part) is np.ndarray and np.iscomplexobj(x) and np.may_share_memory(part, x):
        part = part.view()
        part.flags.writeable = False
        note_part(part)  # (a later write into x passes its adjoint on: complex_parts.py)
    return part


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
    rule.pure = call  # (what it runs without out=: rule_calls.pure_inside)
    return rule


def accept_out(ufuncs) -> None:
    """The rules of `ufuncs` learn `out=` (each ufunc once)."""
    for ufunc in ufuncs:
        entry = _RRULES[ufunc]
        entry.callable = with_out(ufunc, entry.callable)


accept_out([entry.primal for entry in list(_RRULES.values())
            if isinstance(entry.primal, np.ufunc)])
