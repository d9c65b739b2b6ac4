"""Rules for SciPy's special functions (`scipy.special`): one table row per ufunc, from
its partial derivatives, as fwdad/rules/ufuncs.py does for NumPy's ufuncs (and np.i0,
whose derivative is SciPy's i1).

    sc.gammaln: chain(lambda x, y: sc.psi(x))   ->   d gammaln(x) = psi(x) dx

Each derivative is written with functions that have rules themselves (psi's derivative
is polygamma(1, x), polygamma(n, x)'s is polygamma(n + 1, x), i0's is i1 ...), so that
the rules can be differentiated again (hessian). An argument SciPy has no derivative
for (the order v of kv and iv, the a of gammainc, the x of zeta) is refused when its
tangent is not zero: `refuse_tangent` raises NonDifferentiableError naming the function,
the argument, the user's line and what to do. Real inputs only (`refuse_complex`).
This module imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import scipy.special as sc

from fwdad.dual import Dual
from fwdad.errors import FwdadError, NonDifferentiableError, in_user_code
from fwdad.rules.batching import fit, lift, ndim
from fwdad.rules.exprel import exprel_derivative
from fwdad.rules.ieee import divide  # (a Python float 0 gives inf, as NumPy does)
from fwdad.rules.normal_log_cdf import log_ndtr_derivative
from fwdad.rules.polygamma_gap import polygamma_gap
from fwdad.rules.reductions import as_array
from fwdad.rules.registry import def_nondiff, frule
from fwdad.rules.scaled_bessel import ive_derivative
from fwdad.rules.ufuncs import apply_ufunc, chain, partials, write_outputs
from fwdad.tangents import NoTangent

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SQRT_2PI = math.sqrt(2.0 * math.pi)
SQRT_2 = math.sqrt(2.0)


# ---- refusals: checks on values, with no derivative of their own --------------------------
def refuse_tangent(tangent, call: str, arg: str) -> None:
    """Raise when `tangent` (of the argument `arg` of `call`) is not zero: SciPy gives
    no derivative with respect to that argument."""
    if tangent is NoTangent or not np.any(np.asarray(tangent) != 0):
        return
    name, at = call.split("(")[0], in_user_code()
    raise NonDifferentiableError(
        f"scipy.special.{call}{at}: no derivative with respect "
        f"to {arg} (SciPy has no function for it). Pass {arg} as a constant (a value "
        f"that does not depend on what you differentiate), or differentiate {name} "
        f"with respect to its other argument only.")


def refuse_complex(call: str, *values) -> None:
    """The rules here are for real inputs (reverse mode carries no complex values)."""
    if any(np.iscomplexobj(v) for v in values):
        at = in_user_code()
        raise NonDifferentiableError(
            f"scipy.special.{call}{at}: fwdad differentiates "
            f"SciPy's special functions for real inputs only; this call has a complex "
            f"one. Split it into real and imaginary parts, or write an "
            f"`@fwdad.frule` for the complex function.")


def_nondiff(refuse_tangent, refuse_complex)


def _real(call: str, nin: int, tangent: Callable) -> Callable:
    """The tangent of a ufunc of `nin` inputs (its first arguments), for real inputs."""
    def real_tangent(*args):
        refuse_complex(call, *args[:nin])
        return tangent(*args)
    return real_tangent


def _second_only(call: str, arg: str, d2: Callable) -> Callable:
    """A binary tangent from the partial derivative in the second argument only."""
    def tangent(a, b, y, da, db):
        refuse_tangent(da, call, arg)
        return d2(a, b, y) * db
    return tangent


def _over(x, z):
    """x / z, and 0 where x and z are 0 (xlogy(0, z) = 0 for every z). Note: only z is
    replaced, and only there: replaced wherever x is 0, its derivative in x was 1, not
    1 / z (tests/rules/test_derivative_formulas_differentiated.py: the Hessian at 0)."""
    return x / np.where((x == 0) & (z == 0), 1.0, z)


def _in_domain(d, derivative):
    """The derivative where d >= 0; 0 where d < 0, where SciPy's value is the constant
    inf (so the derivative of its definition, np.where(d < 0, np.inf, ...), is 0)."""
    return np.where(d < 0, 0.0, derivative)


def _hypot(d, r):
    """hypot(d, r), but 1 at (0, 0), where its derivative is 0 / 0 (a NaN warning, even
    where _over then gives 0)."""
    return np.hypot(np.where((d == 0) & (r == 0), 1.0, d), r)


def _pseudo_huber_d(d, r):
    """2 d (s - 1) - r^2 / (d s) with s = h / d, h = hypot(d, r): r^4 / (h (h + d)^2),
    which does not cancel and is |r| at d = 0 (the one-sided derivative, as huber's)."""
    h = _hypot(d, r)
    return _over(np.square(np.square(r)), h * np.square(h + d))


def _pseudo_huber_r(d, r):
    """r / s = r d / h: 0 at d = 0, where pseudo_huber(0, r) is 0 for every r."""
    return _over(r * d, _hypot(d, r))


def _i1_prime(x, y):
    """i1' = (i0 + i2) / 2 (DLMF 10.29.1), a sum of one sign: i0 - i1 / x, replaced by
    its limit 1/2 at x = 0, gave a third derivative of 0 there, not 3/8."""
    return 0.5 * (sc.i0(x) + sc.iv(2.0, x))


UNARY = {
    # ---- gamma and its logarithm: psi = d log gamma ----
    sc.gammaln: chain(lambda x, y: sc.psi(x)),
    sc.loggamma: chain(lambda x, y: np.where(np.isnan(y), np.nan, sc.psi(x))),  # real x < 0:
    # SciPy's real loggamma is NaN there (the complex one is not), and so is its derivative
    sc.gamma: chain(lambda x, y: y * sc.psi(x)),
    sc.psi: chain(lambda x, y: sc.polygamma(1, x)),
    # ---- error functions and the normal distribution ----
    sc.erf: chain(lambda x, y: TWO_OVER_SQRT_PI * np.exp(-x * x)),
    sc.erfc: chain(lambda x, y: -TWO_OVER_SQRT_PI * np.exp(-x * x)),
    sc.erfinv: chain(lambda x, y: np.exp(y * y) / TWO_OVER_SQRT_PI),
    sc.erfcinv: chain(lambda x, y: -np.exp(y * y) / TWO_OVER_SQRT_PI),
    sc.ndtr: chain(lambda x, y: np.exp(-0.5 * x * x) / SQRT_2PI),
    sc.log_ndtr: chain(lambda x, y: log_ndtr_derivative(1, x)),  # pdf / cdf, to every order
    sc.ndtri: chain(lambda x, y: SQRT_2PI * np.exp(0.5 * y * y)),  # without underflow
    # ---- the logistic function (expit(-x) = 1 - expit(x), without cancellation) ----
    sc.expit: chain(lambda x, y: y * sc.expit(-x)),
    sc.logit: chain(lambda x, y: divide(1.0, x * (1.0 - x))),
    sc.log_expit: chain(lambda x, y: sc.expit(-x)),
    # ---- modified Bessel functions of orders 0 and 1 (and exponentially scaled) ----
    sc.i0: chain(lambda x, y: sc.i1(x)),
    sc.i1: chain(_i1_prime),
    sc.i0e: chain(lambda x, y: ive_derivative(1, 0, x)),  # without cancellation, to every
    sc.i1e: chain(lambda x, y: ive_derivative(1, 1, x)),  # order (fwdad/rules/scaled_bessel.py)
    # ---- entropy: -x log x ----
    sc.entr: chain(lambda x, y: -(np.log(x) + 1.0)),
    # ---- Dawson's integral and the scaled complementary error function (DLMF 7.10, 7.2.3)
    sc.dawsn: chain(lambda x, y: 1.0 - 2.0 * x * y),
    sc.erfcx: chain(lambda x, y: 2.0 * x * y - TWO_OVER_SQRT_PI),
    # ---- exprel(x) = (e^x - 1) / x; spence(z) = int_1^z log t / (1 - t) dt, whose
    # derivative log z / (1 - z) is -1 / exprel(log z), without 0 / 0 at z = 1 ----
    sc.exprel: chain(lambda x, y: exprel_derivative(1, x)),
    sc.spence: chain(lambda x, y: -divide(1.0, sc.exprel(np.log(x)))),
    sc.cbrt: chain(lambda x, y: divide(1.0, 3.0 * y * y)),
}

BINARY = {
    # psi(a) - psi(a + b), without cancellation when b is small beside a (polygamma_gap.py)
    sc.betaln: partials(lambda a, b, y: -polygamma_gap(0, a, b),
                        lambda a, b, y: -polygamma_gap(0, b, a)),
    sc.beta: partials(lambda a, b, y: -y * polygamma_gap(0, a, b),
                      lambda a, b, y: -y * polygamma_gap(0, b, a)),
    sc.xlogy: partials(lambda x, z, y: np.log(z), lambda x, z, y: _over(x, z)),
    sc.xlog1py: partials(lambda x, z, y: np.log1p(z), lambda x, z, y: _over(x, 1.0 + z)),
    sc.rel_entr: partials(lambda x, z, y: np.log(divide(x, z)) + 1.0,
                          lambda x, z, y: -divide(x, z)),
    sc.kl_div: partials(lambda x, z, y: np.log(divide(x, z)), lambda x, z, y: 1.0 - divide(x, z)),
    # ---- in the second argument only: SciPy has no derivative in the order ----
    sc.kv: _second_only("kv(v, x)", "v", lambda v, x, y: -0.5 * (sc.kv(v - 1.0, x)
                                                                  + sc.kv(v + 1.0, x))),
    sc.iv: _second_only("iv(v, x)", "v", lambda v, x, y: 0.5 * (sc.iv(v - 1.0, x)
                                                                 + sc.iv(v + 1.0, x))),
    # d P(a, x) / dx = x^(a - 1) exp(-x) / gamma(a) (DLMF 8.8.13); xlogy: 1 at a = 1, x = 0
    sc.gammainc: _second_only("gammainc(a, x)", "a", lambda a, x, y: np.exp(
        sc.xlogy(a - 1.0, x) - x - sc.gammaln(a))),
    sc.gammaincc: _second_only("gammaincc(a, x)", "a", lambda a, x, y: -np.exp(
        sc.xlogy(a - 1.0, x) - x - sc.gammaln(a))),
    # Owen's T(h, a) = int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt / (2 pi): in h,
    # -phi(h) erf(a h / sqrt 2) / 2; in a, the integrand at a
    sc.owens_t: partials(lambda h, a, y: -np.exp(-0.5 * h * h) / (2.0 * SQRT_2PI)
                         * sc.erf(a * h / SQRT_2),
                         lambda h, a, y: np.exp(-0.5 * h * h * (1.0 + a * a))
                         / (2.0 * math.pi * (1.0 + a * a))),
    # boxcox(x, l) = (x^l - 1) / l = log(x) exprel(l log x): x^(l - 1), and in l
    # log(x)^2 exprel'(l log x), without (x^l log x - y) / l cancelling near l = 0
    sc.boxcox: partials(lambda x, lm, y: np.power(x, lm - 1.0),
                        lambda x, lm, y: np.log(x) ** 2 * exprel_derivative(1, lm * np.log(x))),
    sc.boxcox1p: partials(lambda x, lm, y: np.power(1.0 + x, lm - 1.0),
                          lambda x, lm, y: np.log1p(x) ** 2
                          * exprel_derivative(1, lm * np.log1p(x))),
    # huber(d, r): r^2 / 2 where |r| <= d, else d (|r| - d / 2); inf for d < 0
    sc.huber: partials(lambda d, r, y: _in_domain(d, np.where(np.abs(r) <= d, 0.0,
                                                              np.abs(r) - d)),
                       lambda d, r, y: _in_domain(d, np.where(np.abs(r) <= d, r,
                                                              d * np.sign(r)))),
    # pseudo_huber(d, r) = d^2 (s - 1), s = sqrt(1 + (r / d)^2); inf for d < 0
    sc.pseudo_huber: partials(lambda d, r, y: _in_domain(d, _pseudo_huber_d(d, r)),
                              lambda d, r, y: _in_domain(d, _pseudo_huber_r(d, r))),
}


def refuse_where(ufunc, kwargs: dict) -> None:
    """SciPy's ufuncs given `where=` write wrong values and corrupt memory (SciPy 1.17
    with NumPy 2.4: tests/rules/test_scipy_special.py), so fwdad refuses it."""
    if "where" in kwargs:
        raise FwdadError(
            f"scipy.special.{ufunc.__name__}(..., where=...): fwdad does not call SciPy's "
            f"special functions with where= (SciPy's own result is wrong with it). Write "
            f"`np.where(mask, scipy.special.{ufunc.__name__}(x), out)` instead.")


def _register(ufunc: np.ufunc, tangent: Callable) -> None:
    """The ufunc's rule (fwdad/rules/ufuncs.py), refusing where=; lists of values are
    arrays, as SciPy reads them (the tangent rows do arithmetic on their inputs)."""
    def rule(*args: Dual, out: Dual = None, **kwargs) -> Dual:
        refuse_where(ufunc, kwargs)
        ins, outs = args[:ufunc.nin], args[ufunc.nin:]
        ins = [as_array(d) if isinstance(d.primal, (list, tuple)) else d for d in ins]
        if not outs and out is not None and out.primal is not None:
            outs = (out,)
        return apply_ufunc(ufunc, tangent, ins, outs, kwargs)
    rule.__name__ = f"_{ufunc.__name__}"
    frule(ufunc)(rule)


for _ufunc, _tangent in UNARY.items():
    _register(_ufunc, _real(f"{_ufunc.__name__}(x)", 1, _tangent))
for _ufunc, _tangent in BINARY.items():
    _register(_ufunc, _real(f"{_ufunc.__name__}(a, b)", 2, _tangent))


# ---- functions that are not ufuncs ---------------------------------------------------------
@frule(sc.polygamma)
def _polygamma(n: Dual, x: Dual) -> Dual:
    """d polygamma(n, x) / dx = polygamma(n + 1, x); the order n is an integer."""
    refuse_tangent(n.tangent, "polygamma(n, x)", "n")
    refuse_complex("polygamma(n, x)", x.primal)
    y = sc.polygamma(n.primal, x.primal)
    dx = lift(x.primal, x.tangent, ndim(y))
    return Dual(y, fit(sc.polygamma(n.primal + 1, x.primal) * dx, y))


@frule(np.i0)
def _numpy_i0(x: Dual) -> Dual:
    """NumPy's i0 (Python code in NumPy, real x): i0' = i1, which NumPy has not."""
    refuse_complex("i0(x)", x.primal)
    y = np.i0(x.primal)
    return Dual(y, fit(sc.i1(x.primal) * lift(x.primal, x.tangent, ndim(y)), y))


@frule(sc.zeta)
def _zeta(x: Dual, q: Dual = None, out: Dual = None) -> Dual:
    """Hurwitz's zeta(x, q): d/dq = -x zeta(x + 1, q) (DLMF 25.11.17). SciPy has no
    derivative in x, and so none of Riemann's zeta(x)."""
    refuse_tangent(x.tangent, "zeta(x, q)" if q is not None else "zeta(x)", "x")
    refuse_complex("zeta(x, q)", x.primal)
    if q is None:
        y = sc.zeta(x.primal)
        dy = fit(0.0 * lift(x.primal, x.tangent, ndim(y)), y)
    else:
        y = sc.zeta(x.primal, q.primal)
        dq = lift(q.primal, q.tangent, ndim(y))
        dy = fit(-x.primal * sc.zeta(x.primal + 1.0, q.primal) * dq, y)
    if out is not None:
        return write_outputs((out,), y, dy, {})
    return Dual(y, dy)


@frule(sc.lambertw)
def _lambertw(z: Dual, k=0, tol=1e-8) -> Dual:
    """W' = W / (z (1 + W)) = exp(-W) / (1 + W) (DLMF 4.13.4), on every branch k, real or
    complex z (SciPy's W is complex: so is the tangent); inf at the branch point -1/e."""
    w = sc.lambertw(z.primal, k, tol)
    dz = lift(z.primal, z.tangent, ndim(w))
    return Dual(w, fit(divide(np.exp(-w), 1.0 + w) * dz, w))


@frule(sc.softplus)
def _softplus(x: Dual, **kwargs) -> Dual:
    """softplus(x) = logaddexp(0, x) (SciPy's own definition): its derivative expit(x)."""
    if kwargs:
        raise FwdadError(f"scipy.special.softplus{in_user_code()} with keyword arguments "
                         f"({', '.join(kwargs)}): call np.logaddexp(0, x, ...) instead, "
                         f"which fwdad differentiates with them.")
    refuse_complex("softplus(x)", x.primal)
    x = as_array(x) if isinstance(x.primal, (list, tuple)) else x
    y = sc.softplus(x.primal)
    return Dual(y, fit(sc.expit(x.primal) * lift(x.primal, x.tangent, ndim(y)), y))
