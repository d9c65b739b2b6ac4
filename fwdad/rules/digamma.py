"""The digamma function psi(x) = d log Gamma(x) / dx on Python floats (the derivative of
math.lgamma and, times Gamma(x), of math.gamma)."""
from __future__ import annotations

import math


def digamma(x: float) -> float:
    """psi(x): recurrence up to x >= 6, then the asymptotic series (error < 1e-12)."""
    if x <= 0 and x == int(x):
        return math.nan
    if x < 0.5:  # reflection
        return digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 6.0:
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 / 132))))
    return shift + math.log(x) - 0.5 / x - series
