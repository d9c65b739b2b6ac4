"""Reverse rules for SciPy's special functions (`scipy.special`): one table row per
ufunc, as fwdad/reverse/rules_ufuncs.py has for NumPy's, and rules for polygamma, zeta,
logsumexp, softmax and log_softmax.

A unary row is f'(x) in terms of x and y = f(x); a binary row is its two partial
derivatives in terms of a, b and y. The rows are written here from the math, apart from
the forward table (fwdad/rules/scipy_special.py), so that the dot-product test against
forward mode checks one against the other. An argument SciPy has no derivative for (the
order of kv and iv, the a of gammainc, the x of zeta) raises when its cotangent is asked
for: only when it is a variable. This module imports SciPy: fwdad/reverse/__init__.py
loads it only where SciPy imports.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special as sc
from numpy.lib.array_utils import normalize_axis_tuple

from fwdad.errors import FwdadError, in_user_code
from fwdad.reverse.registry import (
    complex_ready,
    composed_rrule,
    next_order_rrule,
    raw_rrule,
    rrule,
    rrule_entry,
)
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.rules_ufuncs import accept_out, binary_rrule, unary_rrule
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import value_of
from fwdad.rules.exprel import exprel_derivative
from fwdad.rules.ieee import divide
from fwdad.rules.normal_log_cdf import log_ndtr_derivative
from fwdad.rules.polygamma_gap import polygamma_gap
from fwdad.rules.scaled_bessel import ive_derivative
from fwdad.rules.scipy_composed import agm, diric, refuse_keywords, refuse_zero_argument
from fwdad.rules.scipy_special import refuse_tangent, refuse_where

SQRT_PI, SQRT_2PI = math.sqrt(math.pi), math.sqrt(2.0 * math.pi)


def _refused(call: str, arg: str):
    """A partial derivative SciPy does not have: asking for it raises."""
    def partial(a, b, y):
        refuse_tangent(1.0, call, arg)
    return partial


def _over(x, z):
    """x / z, and 0 where x and z are 0; its derivative in x is 1 / z at x = 0 too
    (forward over reverse differentiates this row: a constant 0 wherever x is 0 gave 0)."""
    return x / np.where((x == 0) & (z == 0), 1.0, z)


def _hypot(d, r):
    """hypot(d, r), but 1 at (0, 0), where its derivative is 0 / 0 (a NaN warning, even
    where _over then gives 0)."""
    return np.hypot(np.where((d == 0) & (r == 0), 1.0, d), r)


def _pseudo_huber_d(d, r):
    """d/dd of d^2 (s - 1), s = sqrt(1 + (r / d)^2): 2 d (s - 1) - r^2 / (d s), with
    s - 1 = (r / d)^2 / (s + 1) and d s = h = hypot(d, r), is r^4 / (h (h + d)^2) (no
    cancellation; at d = 0, |r|, the one-sided derivative)."""
    h = _hypot(d, r)
    return _over(r ** 4, h * np.square(h + d))


def _huber_like(partial):
    """A partial derivative of huber or pseudo_huber: 0 where d < 0, where the function
    is the constant inf."""
    return lambda d, r, y: np.where(d < 0, 0.0, partial(d, r))


def _psi_gap(a, b):
    """psi(a) - psi(a + b), which cancels when b is small beside a: its own rule."""
    return -polygamma_gap(0, a, b)


UNARY = {
    sc.gammaln: lambda x, y: sc.psi(x),
    sc.loggamma: lambda x, y: np.where(np.isnan(y), np.nan, sc.psi(x)),  # NaN at real x < 0
    sc.gamma: lambda x, y: sc.gamma(x) * sc.psi(x),
    sc.psi: lambda x, y: sc.polygamma(1, x),
    sc.erf: lambda x, y: 2.0 / SQRT_PI * np.exp(-np.square(x)),
    sc.erfc: lambda x, y: -2.0 / SQRT_PI * np.exp(-np.square(x)),
    sc.erfinv: lambda x, y: 0.5 * SQRT_PI * np.exp(np.square(y)),
    sc.erfcinv: lambda x, y: -0.5 * SQRT_PI * np.exp(np.square(y)),
    sc.ndtr: lambda x, y: np.exp(-0.5 * np.square(x)) / SQRT_2PI,
    sc.log_ndtr: lambda x, y: log_ndtr_derivative(1, x),  # (r' = -r (x + r) cancels)
    sc.ndtri: lambda x, y: SQRT_2PI * np.exp(0.5 * np.square(y)),
    sc.expit: lambda x, y: sc.expit(x) * sc.expit(-x),
    sc.logit: lambda x, y: divide(1.0, x) + divide(1.0, 1.0 - x),
    sc.log_expit: lambda x, y: sc.expit(-x),
    sc.i0: lambda x, y: sc.i1(x),
    sc.i1: lambda x, y: 0.5 * (sc.i0(x) + sc.iv(2.0, x)),  # (i0 - i1 / x: 0 / 0 at 0)
    sc.i0e: lambda x, y: ive_derivative(1, 0, x),  # (i1e - i0e cancels: forward over
    sc.i1e: lambda x, y: ive_derivative(1, 1, x),  # reverse differentiates these rows)
    sc.entr: lambda x, y: -np.log(x) - 1.0,
    sc.dawsn: lambda x, y: 1.0 - 2.0 * x * sc.dawsn(x),  # D' = 1 - 2 x D (DLMF 7.10)
    sc.erfcx: lambda x, y: 2.0 * (x * sc.erfcx(x) - 1.0 / SQRT_PI),
    sc.exprel: lambda x, y: exprel_derivative(1, x),  # (fwdad/rules/exprel.py: no 0 / 0)
    sc.spence: lambda x, y: -divide(1.0, sc.exprel(np.log(x))),  # log z / (1 - z)
    sc.cbrt: lambda x, y: divide(1.0, 3.0 * np.square(sc.cbrt(x))),
}

BINARY = {
    sc.betaln: (lambda a, b, y: _psi_gap(a, b), lambda a, b, y: _psi_gap(b, a)),
    sc.beta: (lambda a, b, y: y * _psi_gap(a, b), lambda a, b, y: y * _psi_gap(b, a)),
    sc.xlogy: (lambda x, z, y: np.log(z), lambda x, z, y: _over(x, z)),
    sc.xlog1py: (lambda x, z, y: np.log1p(z), lambda x, z, y: _over(x, 1.0 + z)),
    sc.rel_entr: (lambda x, z, y: np.log(x) - np.log(z) + 1.0, lambda x, z, y: -divide(x, z)),
    sc.kl_div: (lambda x, z, y: np.log(x) - np.log(z), lambda x, z, y: 1.0 - divide(x, z)),
    sc.kv: (_refused("kv(v, x)", "v"),
            lambda v, x, y: -(sc.kv(v - 1.0, x) + sc.kv(v + 1.0, x)) / 2.0),
    sc.iv: (_refused("iv(v, x)", "v"),
            lambda v, x, y: (sc.iv(v - 1.0, x) + sc.iv(v + 1.0, x)) / 2.0),
    sc.gammainc: (_refused("gammainc(a, x)", "a"),
                  lambda a, x, y: np.exp(sc.xlogy(a - 1.0, x) - x) / sc.gamma(a)),
    sc.gammaincc: (_refused("gammaincc(a, x)", "a"),
                   lambda a, x, y: -np.exp(sc.xlogy(a - 1.0, x) - x) / sc.gamma(a)),
    sc.owens_t: (lambda h, a, y: -0.5 * np.exp(-0.5 * np.square(h)) / SQRT_2PI
                 * sc.erf(a * h / math.sqrt(2.0)),  # (-phi(h) erf(a h / sqrt 2) / 2)
                 lambda h, a, y: np.exp(-0.5 * np.square(h) * (1.0 + np.square(a)))
                 / (2.0 * math.pi * (1.0 + np.square(a)))),
    sc.boxcox: (lambda x, lm, y: np.exp((lm - 1.0) * np.log(x)),
                lambda x, lm, y: np.square(np.log(x)) * exprel_derivative(1, lm * np.log(x))),
    sc.boxcox1p: (lambda x, lm, y: np.exp((lm - 1.0) * np.log1p(x)),
                  lambda x, lm, y: np.square(np.log1p(x))
                  * exprel_derivative(1, lm * np.log1p(x))),
    sc.huber: (_huber_like(lambda d, r: np.maximum(np.abs(r) - d, 0.0)),
               _huber_like(lambda d, r: np.where(np.abs(r) <= d, r, d * np.sign(r)))),
    sc.pseudo_huber: (_huber_like(_pseudo_huber_d),  # in r: r / s = r d / h, 0 at d = 0
                      _huber_like(lambda d, r: _over(r * d, _hypot(d, r)))),
}

for _ufunc, _derivative in UNARY.items():
    unary_rrule(_ufunc, _derivative)
for _ufunc, (_d1, _d2) in BINARY.items():
    binary_rrule(_ufunc, _d1, _d2)
accept_out([*UNARY, *BINARY])


def _without_where(ufunc, call):
    def rule(*args, **kwargs):
        refuse_where(ufunc, kwargs)
        return call(*args, **kwargs)
    rule.__name__ = getattr(call, "__name__", "rule")
    return rule


def _constant_first(fn, call: str, arg: str) -> None:
    """The rule of `fn` refuses a variable as its first argument, at the user's line
    (the pullbacks' own refusal would come only in the backward pass)."""
    inner = rrule_entry(fn).callable

    def rule(*args, **kwargs):
        if args and is_tracked(args[0]):
            refuse_tangent(1.0, call, arg)
        return inner(*args, **kwargs)
    rule.__name__ = getattr(inner, "__name__", "rule")
    rule.wraps = inner  # (calls it with the same arguments: rules_outputs reads this)
    rrule_entry(fn).callable = rule


for _ufunc in [*UNARY, *BINARY]:
    rrule_entry(_ufunc).callable = _without_where(_ufunc, rrule_entry(_ufunc).callable)


@rrule(sc.polygamma)
def _polygamma(n, x):
    out = sc.polygamma(n, x)
    return out, lambda ct: (lambda: refuse_tangent(1.0, "polygamma(n, x)", "n"),
                            lambda: ct * sc.polygamma(n + 1, x))


@rrule(ive_derivative)
def _ive_derivative(n, v, x):
    out = ive_derivative(n, v, x)
    return out, lambda ct: (None, None, lambda: ct * ive_derivative(n + 1, v, x))


@rrule(np.i0)
def _numpy_i0(x):
    return np.i0(x), lambda ct: (ct * sc.i1(x),)


@rrule(polygamma_gap)
def _polygamma_gap(n, x, y):
    out = polygamma_gap(n, x, y)
    return out, lambda ct: (None, lambda: ct * polygamma_gap(n + 1, x, y),
                            lambda: ct * sc.polygamma(n + 1, x + y))


@rrule(log_ndtr_derivative)
def _log_ndtr_derivative(n, x):
    out = log_ndtr_derivative(n, x)
    return out, lambda ct: (None, lambda: ct * log_ndtr_derivative(n + 1, x))


@rrule(sc.zeta)
def _zeta(x, q=None):
    """Hurwitz's zeta(x, q): d/dq = -x zeta(x + 1, q); none in x."""
    def no_x():
        refuse_tangent(1.0, "zeta(x, q)" if q is not None else "zeta(x)", "x")
    if q is None:
        return sc.zeta(x), lambda ct: (no_x,)
    return sc.zeta(x, q), lambda ct: (no_x, lambda: -ct * x * sc.zeta(x + 1.0, q))


# ---- the log-sum-exp family: cotangents spread back over the reduced axes ---------------
def _spread(ct, axis, ndim: int, keepdims: bool):
    """A cotangent of a reduction over `axis`, with the reduced axes back (length 1)."""
    if keepdims:
        return ct
    axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)
    return np.expand_dims(ct, axes)


def _logsumexp_rule(a, axis=None, b=None, keepdims=False, return_sign=False):
    """d log|s| = sum(sign exp(a - y) (b da + db)), s = sum(b exp(a))."""
    out = sc.logsumexp(a, axis, b, keepdims, return_sign)
    kept, sign = sc.logsumexp(a, axis, b, keepdims=True, return_sign=True)
    weight = sign * np.exp(a - kept)
    size = np.ndim(weight) if b is None else max(np.ndim(a), np.ndim(b))

    def pullback(ct):
        ct = _spread(ct[0] if return_sign else ct, axis, size, keepdims) * weight
        return (lambda: ct if b is None else ct * b, None, lambda: ct, None, None)
    return out, pullback


_pure_logsumexp = Pure(sc.logsumexp, _logsumexp_rule)


@raw_rrule(sc.logsumexp)
def _logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """b= may be a variable: given to the pure rule by position."""
    return _pure_logsumexp(a, axis, b, keepdims, return_sign)


@rrule(sc.softmax)
def _softmax(x, axis=None):
    y = sc.softmax(x, axis=axis)
    return y, lambda ct: (y * (ct - np.sum(ct * y, axis=axis, keepdims=True)),)


@rrule(sc.log_softmax)
def _log_softmax(x, axis=None):
    y = sc.log_softmax(x, axis=axis)
    return y, lambda ct: (ct - np.exp(y) * np.sum(ct, axis=axis, keepdims=True),)


for _fn, _call, _arg in [(sc.kv, "kv(v, x)", "v"), (sc.iv, "iv(v, x)", "v"),
                         (sc.gammainc, "gammainc(a, x)", "a"),
                         (sc.gammaincc, "gammaincc(a, x)", "a"),
                         (sc.polygamma, "polygamma(n, x)", "n"), (sc.zeta, "zeta(x, q)", "x")]:
    _constant_first(_fn, _call, _arg)


next_order_rrule(exprel_derivative)


@rrule(sc.lambertw)
def _lambertw(z, k=0, tol=1e-8):
    """W' = exp(-W) / (1 + W) on every branch: holomorphic, so ct W' (complex_ready); a
    real z keeps the real part of its cotangent."""
    w = sc.lambertw(z, k, tol)
    return w, lambda ct: (ct * divide(np.exp(-w), 1.0 + w),)


complex_ready(sc.lambertw)


@rrule(sc.softplus)
def _softplus(x, **kwargs):
    if kwargs:
        raise FwdadError(f"scipy.special.softplus{in_user_code()} with keyword arguments "
                         f"({', '.join(kwargs)}): call np.logaddexp(0, x, ...) instead, "
                         f"which fwdad differentiates with them.")
    return sc.softplus(x), lambda ct: (ct * sc.expit(x),)


# ---- agm and diric: composed from their plain NumPy (fwdad/rules/scipy_composed.py) ----
_agm_composed = composed_rrule(sc.agm)(agm)
_diric_composed = composed_rrule(sc.diric)(diric)


@raw_rrule(sc.agm)
def _agm(a, b, **kwargs):
    refuse_keywords("agm(a, b)", kwargs)
    tracked = {"a": is_tracked(a), "b": is_tracked(b)}
    refuse_zero_argument(tracked.get, _primal(a), _primal(b))
    return _agm_composed(a, b)


def _primal(x):
    """The values of an argument: of a variable, or of a Dual (forward over reverse)."""
    value = value_of(x) if is_tracked(x) else x
    return getattr(value, "primal", value)


@raw_rrule(sc.diric)
def _diric(x, n):
    if is_tracked(n):
        refuse_tangent(1.0, "diric(x, n)", "n")
    return _diric_composed(x, n)
