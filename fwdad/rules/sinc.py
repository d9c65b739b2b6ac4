"""The derivatives of np.sinc of every order, computed without cancellation near 0, and
the rule that differentiates them again.

    sinc_derivative(2, 0.0)   ->   -pi^2 / 3

Note: sinc' = (cos(pi x) - sinc(x)) / x differences two numbers near 1 close to 0: it
came out 30% off at x = 1e-8, its derivative at 0 (where it was replaced by its limit 0)
was 0, not -pi^2 / 3, and the third derivative at 1e-8 was 6e8, not 2e-7
(tests/rules/test_derivative_formulas_differentiated.py). Here, within 1 of 0,

    sinc^(n)(x) = int_0^1 (pi t)^n cos^(n)(pi x t) dt      (sinc(x) = int_0^1 cos(pi x t) dt)

by Gauss-Legendre quadrature (exact to rounding: the integrand is a polynomial times a
cosine of at most pi), and Leibniz's rule on sin(pi x) * (1 / (pi x)) farther out (from
0.25 at first order).
"""
from __future__ import annotations

import math

import numpy as np

from fwdad.rules.regions import by_region, next_order_frule


def sinc_derivative(n: int, x):
    """The n-th derivative of np.sinc (n >= 0), elementwise; a scalar for a scalar x."""
    if n == 0:
        return np.sinc(x)
    bound = 0.25 if n == 1 else 1.0  # (first order: Leibniz loses under 4 bits from
    # 0.25; the quadrature costs twenty cosines a value)
    return by_region(x, lambda x: np.abs(x) <= bound,
                     lambda x: _quadrature(n, x), lambda x: _leibniz(n, x))


def _quadrature(n: int, x: np.ndarray) -> np.ndarray:
    """int_0^1 (pi t)^n cos^(n)(pi x t) dt; an odd n gives a sine, so 0 at x = 0 exactly."""
    nodes, weights = np.polynomial.legendre.leggauss(20 + n)
    t = (nodes + 1.0) / 2.0
    phase = np.multiply.outer(x, math.pi * t)
    wave = np.cos(phase) if n % 2 == 0 else np.sin(phase)
    sign = (-1.0) ** ((n + 1) // 2)  # cos, -sin, -cos, sin, ...
    return sign * (wave @ (weights / 2.0 * (math.pi * t) ** n))


def _leibniz(n: int, x: np.ndarray) -> np.ndarray:
    """sum_k C(n, k) (d^k sin(pi x)) (d^(n-k) 1 / (pi x)), |x| > 1."""
    total = np.zeros_like(x)
    for k in range(n + 1):
        sine = math.pi ** k * np.sin(math.pi * x + k * math.pi / 2.0)
        inverse = (-1.0) ** (n - k) * math.factorial(n - k) / (math.pi * x ** (n - k + 1))
        total += math.comb(n, k) * sine * inverse
    return total


next_order_frule(sinc_derivative)
