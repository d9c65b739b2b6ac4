"""The derivatives of scipy.special.exprel of every order, computed without cancellation
near 0, and the rule that differentiates them again.

    exprel_derivative(1, 0.0)   ->   1 / 2

exprel(x) = (e^x - 1) / x = int_0^1 e^(x t) dt, so

    exprel^(n)(x) = int_0^1 t^n e^(x t) dt.

The closed form of exprel' = (1 + (x - 1) exprel(x)) / x differences two numbers near 1
close to 0, and its value there (1 / 2) would be a limit put in by hand, whose own
derivative is then 0 (docs/writing-rules.md). Here, within max(4, n) of 0, the integral
is taken by Gauss-Legendre quadrature (exact to rounding: a polynomial times an
exponential of at most max(4, n)); farther out by the recurrence

    I_n = (e^x - n I_(n-1)) / x,    I_0 = exprel(x),

which loses nothing where |x| > n (each step multiplies the error by n / |x| < 1).
Other rules build on it: boxcox's derivative in its lambda, spence's derivative
(-1 / exprel(log z)).
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

from fwdad.rules.regions import by_region, next_order_frule


def exprel_derivative(n: int, x):
    """The n-th derivative of scipy.special.exprel (n >= 0), elementwise; a scalar for a
    scalar x."""
    if n == 0:
        return sc.exprel(x)
    return by_region(x, lambda x: np.abs(x) <= max(4.0, float(n)),
                     lambda x: _quadrature(n, x), lambda x: _recurrence(n, x))


def _quadrature(n: int, x: np.ndarray) -> np.ndarray:
    nodes, weights = np.polynomial.legendre.leggauss(30 + n)
    t = (nodes + 1.0) / 2.0
    return np.exp(np.multiply.outer(x, t)) @ (weights / 2.0 * t ** n)


def _recurrence(n: int, x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):  # (e^x overflows past 709: inf)
        total, grown = sc.exprel(x), np.exp(x)
        for k in range(1, n + 1):
            total = (grown - k * total) / x
    return total


next_order_frule(exprel_derivative)
