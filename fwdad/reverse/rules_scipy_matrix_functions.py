"""Reverse rules for SciPy's sqrtm and logm (`scipy.linalg`).

Both are primary matrix functions of real power series, whose Fréchet derivative's
adjoint at a is the Fréchet derivative at a^T: sqrtm's cotangent solves
s^T y + y s^T = ct (solve_sylvester), and logm's is the top-right block of
logm([[a^T, ct], [0, a^T]]). The forward rules' domain and refusals
(fwdad/rules/scipy_matrix_functions.py): real a with a real result, invertible. This
module imports SciPy: fwdad/reverse/__init__.py loads it only where SciPy imports.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.reverse.registry import rrule
from fwdad.rules.empty_inputs import zero_at_empty_rrule
from fwdad.rules.scipy_matrix_functions import check_real_input, check_real_result, logm_frechet


def _T(a):
    return np.swapaxes(a, -1, -2)


@rrule(sl.sqrtm)
@zero_at_empty_rrule(sl.sqrtm)
def _sqrtm(a, **options):
    """a gets solve_sylvester(s^T, s^T, ct)."""
    check_real_input("sqrtm", a, options)
    s = sl.sqrtm(a, **options)
    check_real_result("sqrtm", a, s)
    return s, lambda ct: (sl.solve_sylvester(_T(s), _T(s), ct),)


@rrule(sl.logm)
def _logm(a, **options):
    """a gets L(a^T, ct)."""
    check_real_input("logm", a, options)
    out = sl.logm(a, **options)
    check_real_result("logm", a, out)
    return out, lambda ct: (logm_frechet(_T(a), ct),)
