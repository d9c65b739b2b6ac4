"""Rules for NumPy's ufuncs: one table row per ufunc, from its partial derivatives.

Most rows are in the derivative table (rules/derivatives.py); the rows here map a ufunc
to its tangent, a function of the inputs, the output y and the inputs' tangents (lifted
to broadcast against y), for the ufuncs that need more than a derivative per input.
`_register` makes the one rule they all share, which also handles `out=` (primal and
tangent of `out` are updated in place and `out` is returned), `where=`, `dtype=` and
batched tangents.
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.rules import derivatives
from fwdad.rules import operators as ops
from fwdad.rules.batching import fit, lift, ndim
from fwdad.rules.branch_cuts import cut_checked
from fwdad.rules.derivative_code import inline_template, ufunc_tangent
from fwdad.rules.ieee import selected
from fwdad.rules.operators import magnitude_tangent
from fwdad.rules.registry import def_linear, def_nondiff, frule, takes_out
from fwdad.rules.unshared import own
from fwdad.rules.widening import refused_as_constant, widen_for
from fwdad.tangents import NoTangent


def chain(derivative: Callable) -> Callable:
    """A unary tangent from its derivative f'(x), written in terms of x and y = f(x)."""
    return lambda x, y, dx: derivative(x, y) * dx


def partials(d1: Callable, d2: Callable) -> Callable:
    """A binary tangent from its two partial derivatives, in terms of x1, x2 and y."""
    return lambda a, b, y, da, db: d1(a, b, y) * da + d2(a, b, y) * db


def _angle_tangent(x, y, dx):
    """d angle(z) = Im(dz / z); the angle of a real number is piecewise constant."""
    if not np.iscomplexobj(x):
        return NoTangent
    return np.imag(dx / x)


def _sign_tangent(x, y, dx):
    """sign(z) = z / |z| for complex z: d sign = i sign(z) Im(conj(sign(z)) dz) / |z| (the
    part of dz / |z| that turns z). At z = 0, sign(0 + h t) = sign(h) t / |t| has no
    derivative: NaN, or 0 along t = 0 (as std at equal values). Real sign: constant."""
    if not np.iscomplexobj(x):
        return NoTangent
    with np.errstate(invalid="ignore", divide="ignore"):
        turn = 1j * y * np.imag(np.conj(y) * dx) / np.abs(x)
    return np.where(x == 0, np.where(dx == 0, 0.0, np.nan), turn)


def _at_least_double(a):
    """float_power computes in float64 or complex128 (an int base to a negative power)."""
    return np.asarray(a, dtype=np.result_type(a, np.float64))


def _select(first: Callable) -> Callable:
    """maximum/minimum and kin: the tangent of the input the output came from;
    `first(a, b)` says where that is the first input (ties: the first input). Selected,
    not mixed, as np.where's: an inf or NaN tangent of the other input stays out
    (np.maximum(np.log(x), -1.0) at 0 gives 0, as reverse mode does)."""
    def tangent(a, b, y, da, db):
        if da is NoTangent and db is NoTangent:
            return NoTangent
        return np.where(first(a, b), 0.0 if da is NoTangent else da,
                        0.0 if db is NoTangent else db)
    return tangent


# The ufuncs whose tangents are not one derivative per input (the rest are rows of
# rules/derivatives.py, the table shared with `math` and reverse mode).
UNARY = {
    np.absolute: lambda x, y, dx: magnitude_tangent(x, y, dx),  # (|x| at 0: 0)
    # ---- linear ----
    np.negative: lambda x, y, dx: -dx,
    np.positive: lambda x, y, dx: +dx,
    np.conjugate: lambda x, y, dx: np.conjugate(dx),
    np.sign: _sign_tangent,
}

BINARY = {
    # ---- arithmetic: the operators' math ----
    np.add: lambda a, b, y, da, db: da + db,
    np.subtract: lambda a, b, y, da, db: da - db,
    np.multiply: lambda a, b, y, da, db: da * b + a * db,
    np.divide: lambda a, b, y, da, db: (da - y * db) / b,
    np.power: lambda a, b, y, da, db: ops.pow_base_term(a, b, da)
    + ops.pow_exponent_term(a, y, db),
    np.float_power: lambda a, b, y, da, db: ops.pow_base_term(_at_least_double(a), b, da)
    + ops.pow_exponent_term(a, y, db),
    # ---- selections: ties take the tangent of the first input ----
    np.maximum: _select(lambda a, b: (np.asarray(a) >= b) | np.isnan(a)),
    np.minimum: _select(lambda a, b: (np.asarray(a) <= b) | np.isnan(a)),
    np.fmax: _select(lambda a, b: (np.asarray(a) >= b) | np.isnan(b)),
    np.fmin: _select(lambda a, b: (np.asarray(a) <= b) | np.isnan(b)),
    # 0 where a < 0, 1 where a > 0, and b where a == 0: b's tangent there, selected
    np.heaviside: lambda a, b, y, da, db: selected(np.asarray(a) == 0, db),
}

def mantissa_tangent(x, exponent, dx):
    """The tangent of frexp's mantissa m = x 2^-e (e is piecewise constant): dx 2^-e, and
    at x = 0, where m jumps from 0 to 1/2 or more on either side, none (nan) unless dx
    is 0 there, as np.linalg.norm's at 0."""
    scaled = np.ldexp(dx, -exponent)
    return np.where(np.asarray(x) != 0, scaled, np.where(scaled == 0, 0.0, np.nan))


TWO_OUTPUTS = {
    np.frexp: lambda x, y, dx: (mantissa_tangent(x, y[1], dx), NoTangent),  # x = m 2^e
    np.modf: lambda x, y, dx: (dx, NoTangent),  # (fractional part, integral part)
    np.divmod: lambda a, b, y, da, db: (NoTangent, da - y[0] * db),
}

NONDIFF = [  # piecewise constant, or not a float
    np.floor, np.ceil, np.trunc, np.rint, np.signbit, np.spacing, np.isnan,
    np.isinf, np.isfinite, np.logical_not, np.invert, np.greater, np.greater_equal,
    np.less, np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or,
    np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift,
    np.right_shift, np.floor_divide, np.gcd, np.lcm, np.bitwise_count,
    np.isnat,
]


def _register(ufunc: np.ufunc, tangent: Optional[Callable], template=None) -> None:
    """The rule of `ufunc`: positional outputs or `out=` are updated in place."""
    def rule(*args: Dual, out: Dual = None, **kwargs) -> Dual:
        ins, outs = args[:ufunc.nin], args[ufunc.nin:]
        if not outs and out is not None and out.primal is not None:
            outs = (out,)
        return apply_ufunc(ufunc, tangent, ins, outs, kwargs)
    rule.__name__ = f"_{ufunc.__name__}"
    frule(ufunc, template=template)(rule)


def apply_ufunc(ufunc: np.ufunc, tangent: Optional[Callable], ins, outs, kwargs) -> Dual:
    """Run `ufunc` on fresh memory (an input may alias `out`), then write into `out`."""
    primals = [d.primal for d in ins]
    computed = {k: v for k, v in kwargs.items() if k != "where"} if outs else kwargs
    y = ufunc(*primals, **computed)  # with `out`, `where` picks what is copied there
    first = y[0] if ufunc.nout > 1 else y
    out_ndim = ndim(first)
    dins = [lift(d.primal, d.tangent, out_ndim) for d in ins]
    dy = NoTangent if tangent is None else tangent(*_as_numpy(primals), y, *dins)
    # Note: a row may give an input's tangent itself (add(a, 0), nextafter, modf): the
    # new output gets a copy of its own, so that updating it leaves the input's alone.
    dy = tuple(fit(own(t, *dins), v) for t, v in zip(dy, y)) if ufunc.nout > 1 else \
        fit(own(dy, *dins), y)
    if not outs:
        return Dual(y, dy)
    return write_outputs(outs, y, dy, kwargs)


def _as_numpy(primals: list) -> list:
    """Python floats as NumPy scalars for the tangent formulas: 1 / x at x = 0.0 is inf
    there, as NumPy computes it (np.log(0.0)'s tangent), not a ZeroDivisionError."""
    return [np.float64(p) if type(p) is float else p for p in primals]


def write_outputs(outs, y, dy, kwargs) -> Dual:
    """Copy results into the `out` arrays, primal and tangent, and return them."""
    targets = _targets(outs)
    many = isinstance(y, tuple)
    for i, target in enumerate(targets):
        _write(target, y[i] if many else y, dy[i] if many else dy, kwargs)
    if len(targets) == 1 and len(outs) == 1 and not isinstance(outs[0].primal, tuple):
        return outs[0]
    return Dual(tuple(t.primal for t in targets), tuple(t.tangent for t in targets))


def _targets(outs) -> list:
    if len(outs) == 1 and isinstance(outs[0].primal, tuple):
        return [Dual(p, t) for p, t in zip(outs[0].primal, outs[0].tangent)]
    return list(outs)


def _write(target: Dual, y, dy, kwargs) -> None:
    where = kwargs.get("where", True)
    np.copyto(target.primal, y, casting=kwargs.get("casting", "same_kind"), where=where)
    if target.tangent is NoTangent:  # an integer output
        return
    if refused_as_constant(target.tangent, dy, "out=", target.primal):
        return  # zeros into a constant's zeros
    if dy is not NoTangent:  # a batched or recorded dy needs a tangent that can hold it
        widen_for(target, Dual(y, dy), "out=")
    dy = 0.0 if dy is NoTangent else lift(y, dy, np.ndim(target.primal))
    np.copyto(target.tangent, dy, where=where)


for _ufunc, _tangent in {**UNARY, **BINARY, **TWO_OUTPUTS}.items():
    _register(_ufunc, _tangent)
_TABLE = {row.numpy: row for row in derivatives.UNARY + derivatives.BINARY if row.numpy}
_TANGENTS = {ufunc: ufunc_tangent(row) for ufunc, row in _TABLE.items()}
_TANGENTS.update(cut_checked(_TANGENTS))  # (complex arguments on a branch cut: refused)
for _ufunc, _tangent in _TANGENTS.items():
    _register(_ufunc, _tangent, inline_template(_TABLE[_ufunc], _ufunc))
for _ufunc in NONDIFF:
    _register(_ufunc, None)


# ---- elementwise selection: clip and where ----------------------------------------------
@frule(np.clip, np.ndarray.clip)
def _clip(x: Dual, a_min: Dual = None, a_max: Dual = None, out: Dual = None, *,
          min: Dual = None, max: Dual = None, **kwargs) -> Dual:
    """clip = minimum(maximum(x, a_min), a_max); at a tie, the tangent of x."""
    y = x
    for bound, ufunc in ((a_min or min, np.maximum), (a_max or max, np.minimum)):
        if bound is not None and bound.primal is not None:
            y = apply_ufunc(ufunc, BINARY[ufunc], (y, bound), (), {})
    if out is not None and out.primal is not None:
        return write_outputs((out,), y.primal, y.tangent, kwargs)
    return y


@frule(np.where)
def _where(condition, x: Dual = None, y: Dual = None) -> Dual:
    """where(c, x, y) takes x's tangent where c holds, y's elsewhere; where(c) alone
    gives indices (no tangent)."""
    if x is None:
        return Dual(np.where(condition), NoTangent)
    out = np.where(condition, x.primal, y.primal)
    ndim = np.ndim(out)
    dx, dy = (lift(d.primal, d.tangent, ndim) for d in (x, y))
    if dx is NoTangent and dy is NoTangent:
        return Dual(out, NoTangent)
    dx, dy = (0.0 if d is NoTangent else d for d in (dx, dy))  # (an int operand)
    mask = np.asarray(condition, dtype=bool)  # (selected, not mixed: an inf or NaN tangent
    return Dual(out, fit(np.where(mask, dx, dy), out))  # of the other branch stays out)


@frule(np.angle)
def _angle(z: Dual, deg=False) -> Dual:
    out = np.angle(z.primal, deg)
    tangent = _angle_tangent(z.primal, out, z.tangent)
    return Dual(out, fit(tangent * (180.0 / math.pi) if deg else tangent, out))


def_nondiff(np.round, np.around, np.fix, np.isclose, np.allclose, np.array_equal,
            np.isreal, np.iscomplex)
takes_out(2, np.round, np.around)  # (rules/outputs.py adds out= to their rules)
takes_out(1, np.fix)
def_linear(np.real, np.imag)


@frule(np.real_if_close)
def _real_if_close(a: Dual, tol=100) -> Dual:
    """The real part where NumPy drops imaginary parts all within `tol` machine epsilons
    of zero, else `a` itself: the tangent of the branch taken."""
    out = np.real_if_close(a.primal, tol)
    dropped = np.iscomplexobj(a.primal) and not np.iscomplexobj(out)
    tangent = fit(np.real(a.tangent) if dropped else a.tangent, out)
    # NumPy returns a real array itself: it keeps its tangent; a new array gets a copy
    return Dual(out, tangent if out is a.primal else own(tangent, a.tangent))
