"""The derivatives of SciPy's exponentially scaled Bessel functions i0e and i1e, of any
order, computed without cancellation, and the rule that differentiates them again.

    ive_derivative(3, 0, 19044.0)   ->   d^3/dx^3 i0e(x) at x = 19044, to 1e-14

Note: i0e' = i1e - i0e and i1e' = i0e - i1e / x - i1e (x > 0) are differences of
nearly equal numbers when x is large, and differentiating them again differences the
differences: the third derivative of i0e came out 4e-4 relative off at x = 19044 (fuzzer
seed 99,985,473, tests/test_third_order.py). Here the n-th derivative of
ive(v, x) = exp(-|x|) I_v(x) for x > 0 is

    (1/pi) int_0^pi cos(v t) (cos t - 1)^n exp(x (cos t - 1)) dt

(DLMF 10.32.3), whose integrand keeps one sign for v = 0: the trapezoidal rule on it
(exact to rounding for a periodic integrand with enough points) for x below 50, and
Hankel's expansion (DLMF 10.40.1) differentiated term by term above (for n up to 4; from
3 n^2 for higher n), where it converges to rounding in at most 40 terms. i0e is even
and i1e odd; at x = 0, where exp(-|x|) has a kink, a derivative whose sides differ in
sign is 0, as np.abs's is.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special as sc

from fwdad.dual import Dual
from fwdad.rules.batching import fit, lift, ndim
from fwdad.rules.registry import frule

ASYMPTOTIC_FROM = 50.0  # (and 3 n^2) Hankel's expansion is exact to rounding from here
_CHUNK = 4096  # values per trapezoidal sum: bounds the (values x nodes) table


def ive_derivative(n: int, v: int, x):
    """The n-th derivative of scipy.special.ive(v, x) in x (n >= 0, v = 0 or 1: of i0e
    or i1e), elementwise; a float for a scalar x."""
    x = np.asarray(x, dtype=np.float64)
    if n == 0:
        return sc.ive(v, x)[()]
    size = np.abs(x)
    out = np.empty_like(size)
    far = size >= max(ASYMPTOTIC_FROM, 3.0 * n * n)  # its terms fall from the first
    out[far] = _hankel(n, v, size[far])
    near = size[~far]
    if n == 1:  # (first order below 50: the difference loses under 7 bits, and the
        out[~far] = _first(v, near)  # integral's sum costs ten times more)
    else:
        out[~far] = np.concatenate([_trapezoid(n, v, near[i:i + _CHUNK])
                                    for i in range(0, near.size, _CHUNK)] or [near])
    if (n + v) % 2:  # an odd function of x
        out = np.where(x < 0, -out, np.where(x == 0, 0.0, out))
    return out[()]


def _first(v: int, x: np.ndarray) -> np.ndarray:
    """The first derivative at 0 <= x < 50 from SciPy's own values: i0e' = i1e - i0e,
    i1e' = i0e - i1e / x - i1e (1/2 at 0)."""
    if v == 0:
        return sc.ive(1, x) - sc.ive(0, x)
    i1e = sc.ive(1, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x == 0, 0.5, sc.ive(0, x) - i1e / x - i1e)


def _trapezoid(n: int, v: int, x: np.ndarray) -> np.ndarray:
    """The integral above at x >= 0. Its error is about I_m(x) / I_0(x) for m nodes, below
    1e-17 once m^2 > 40 x (plus the degree n + v of the trigonometric factor)."""
    largest = float(np.max(x, initial=0.0, where=~np.isnan(x)))  # (NaN stays NaN below)
    nodes = int(math.sqrt(40.0 * largest)) + n + v + 16
    t = np.linspace(0.0, math.pi, nodes + 1)
    drop = -2.0 * np.sin(t / 2.0) ** 2  # cos t - 1, without its rounding near t = 0
    weights = np.cos(v * t) * drop ** n / nodes
    weights[[0, -1]] *= 0.5
    return np.exp(np.multiply.outer(x, drop)) @ weights


def _hankel(n: int, v: int, x: np.ndarray) -> np.ndarray:
    """sum_k (-1)^k a_k(v) x^(-k-1/2) / sqrt(2 pi), differentiated n times, at x >= 50:
    a_k(v) = prod_{j <= k} (4 v^2 - (2j - 1)^2) / (k! 8^k)."""
    total, a_k = np.zeros_like(x), 1.0
    for k in range(64):
        rising = math.prod(k + 0.5 + j for j in range(n))  # (k + 1/2)(k + 3/2)...
        term = (-1.0) ** (k + n) * a_k * rising * x ** (-(k + 0.5 + n))
        total += term
        if np.all(np.abs(term) <= 1e-17 * np.abs(total)):
            break
        a_k *= (4 * v * v - (2 * k + 1) ** 2) / (8 * (k + 1))
    return total / math.sqrt(2.0 * math.pi)


@frule(ive_derivative)
def _ive_derivative(n: Dual, v: Dual, x: Dual) -> Dual:
    """d/dx ive_derivative(n, v, x) = ive_derivative(n + 1, v, x); n and v are integers."""
    y = ive_derivative(n.primal, v.primal, x.primal)
    dx = lift(x.primal, x.tangent, ndim(y))
    return Dual(y, fit(ive_derivative(n.primal + 1, v.primal, x.primal) * dx, y))
