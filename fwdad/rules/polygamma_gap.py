"""psi^(n)(x + y) - psi^(n)(x), the gap between two values of a polygamma function,
computed without cancellation when y is small beside x, and the rule that
differentiates it again: the partial derivatives of betaln and beta.

    polygamma_gap(0, 1e6, 1e-3)   ->   9.999995e-10, to 1e-16 (the difference of SciPy's
                                       psi values: 1.3e-9, 30% off)

Note: d betaln(a, b) / da = psi(a) - psi(a + b) is about -b / a when b is small beside a,
and psi(a) is about log(a): written as that difference, it loses log(a) a / b of its
last bit (measured: 3e-6 relative at a = 1e6, b = 1e-3; tests/rules/test_polygamma_gap.py).
Here the gap is a sum of terms of one sign: the recurrence
psi^(n)(z + 1) = psi^(n)(z) + (-1)^n n! z^(-n-1) moves x up to where the asymptotic
series (DLMF 5.15.8) is exact to rounding, and every difference of powers there,
(z + y)^-m - z^-m, is z^-m expm1(-m log1p(y / z)). Where x or x + y is not positive
(betaln of negative arguments), it is the difference of SciPy's values.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special as sc

from fwdad.dual import Dual
from fwdad.rules.batching import fit, lift, ndim
from fwdad.rules.registry import frule

# B_2, B_4, ..., B_20: the asymptotic series' coefficients
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330)


def polygamma_gap(n: int, x, y):
    """psi^(n)(x + y) - psi^(n)(x) (psi^(0) = psi), elementwise; a float for scalars."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64),
                               np.asarray(y, dtype=np.float64))
    out = np.array(sc.polygamma(n, x + y) - sc.polygamma(n, x), dtype=np.float64)
    stable = (x > 0) & (x + y > 0) & np.isfinite(x) & np.isfinite(y)
    out[stable] = _gap(n, x[stable], y[stable])
    return out[()]


def _power_gap(m: int, z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(z + y)^-m - z^-m, for z > 0 and z + y > 0."""
    return z ** -m * np.expm1(-m * np.log1p(y / z))


def _gap(n: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The gap at x > 0, x + y > 0: the recurrence up to 20 + 2n, then the series."""
    start = 20.0 + 2.0 * n  # (the series' terms grow with n like (2k + n - 1)!)
    steps = int(max(0.0, math.ceil(start - float(np.min(x, initial=start)))))
    total, z = np.zeros_like(x), x.copy()
    for _ in range(steps):  # gap(z) = gap(z + 1) - (-1)^n n! ((z + y)^-(n+1) - z^-(n+1))
        below = z < start
        total[below] -= (-1) ** n * math.factorial(n) * _power_gap(n + 1, z[below], y[below])
        z[below] += 1.0
    if n == 0:
        series = np.log1p(y / z) - 0.5 * _power_gap(1, z, y) - sum(
            b / (2 * k) * _power_gap(2 * k, z, y) for k, b in enumerate(_BERNOULLI, 1))
    else:
        series = (-1) ** (n + 1) * (
            math.factorial(n - 1) * _power_gap(n, z, y)
            + 0.5 * math.factorial(n) * _power_gap(n + 1, z, y)
            + sum(b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
                  * _power_gap(2 * k + n, z, y) for k, b in enumerate(_BERNOULLI, 1)))
    return total + series


@frule(polygamma_gap)
def _polygamma_gap(n: Dual, x: Dual, y: Dual) -> Dual:
    """d/dx = polygamma_gap(n + 1, x, y), d/dy = polygamma(n + 1, x + y); n an integer."""
    out = polygamma_gap(n.primal, x.primal, y.primal)
    dx, dy = lift(x.primal, x.tangent, ndim(out)), lift(y.primal, y.tangent, ndim(out))
    return Dual(out, fit(polygamma_gap(n.primal + 1, x.primal, y.primal) * dx
                         + sc.polygamma(n.primal + 1, x.primal + y.primal) * dy, out))
