"""Reverse rules for SciPy's solve_sylvester and solve_continuous_lyapunov.

The tangent map dx = S^-1 (dq - da x - x db), with S(z) = a z + z b, has the adjoint
y = S^-T ct, S^T(z) = a^T z + z b^T: the same solver with a^T and b^T. Then q gets y,
a gets -y x^T and b gets -x^T y (a Lyapunov equation's a gets both, b being a^T). Real
matrices; the solution unique. This module imports SciPy: fwdad/reverse/__init__.py
loads it only where SciPy imports.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.reverse.registry import rrule
from fwdad.rules.complex_input import real_only
from fwdad.rules.scipy_sylvester import refuse_empty_operator


def _T(a):
    return np.swapaxes(a, -1, -2)


@rrule(sl.solve_sylvester)
def _solve_sylvester(a, b, q):
    """y = solve_sylvester(a^T, b^T, ct): a gets -y x^T, b gets -x^T y, q gets y."""
    real_only("scipy.linalg.solve_sylvester", a, b, q)
    refuse_empty_operator(a, b, q)
    x = sl.solve_sylvester(a, b, q)

    def pullback(ct):
        y = sl.solve_sylvester(_T(a), _T(b), ct)
        return -y @ _T(x), -_T(x) @ y, y
    return x, pullback


@rrule(sl.solve_continuous_lyapunov)
def _solve_continuous_lyapunov(a, q):
    """y = solve_continuous_lyapunov(a^T, ct): a gets -(y x^T + y^T x), q gets y."""
    real_only("scipy.linalg.solve_continuous_lyapunov", a, q)
    x = sl.solve_continuous_lyapunov(a, q)

    def pullback(ct):
        y = sl.solve_continuous_lyapunov(_T(a), ct)
        return -(y @ _T(x) + _T(y) @ x), y
    return x, pullback
