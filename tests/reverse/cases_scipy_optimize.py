"""The reverse rule cases of SciPy's solvers and quad (fwdad/reverse/
rules_scipy_optimize.py, rules_scipy_quad.py), run through the dot-product test against
forward mode. Solvers that return an OptimizeResult have rows through the functions of
tests/rules/scipy_optimize_cases.py that read its fields: COVERS lists them for the
meta-test. Not through test_varmat_matvar: the solvers' parameters come through args=,
a tuple. Empty where SciPy is absent."""
from __future__ import annotations

import numpy as np

from tests.reverse.case import Case
from tests.rules.scipy_optimize_cases import (
    DATA,
    P,
    cubic,
    damped,
    decay,
    least_squares_x,
    minimize_value,
    minimize_x,
    quad_to_infinity,
    root_given_jacobian_x,
    root_scalar_root,
    root_x,
    system,
)

try:
    import scipy.integrate as si
    import scipy.optimize as so
except ImportError:  # SciPy is optional
    si = so = None


def least_squares_fields(data):
    """cost and fun: recomputed from the solution on the tape."""
    res = so.least_squares(decay, np.ones(2), args=(data,), method="lm", xtol=1e-15,
                           ftol=1e-15, gtol=1e-15)
    return res.cost, res.fun


def _cases() -> list:
    tight = dict(xtol=1e-15)
    rows = [Case(solver, (cubic, 0.0, 3.0, (1.3,)), tight, varmat=False)
            for solver in (so.brentq, so.brenth, so.ridder, so.bisect, so.toms748)]
    rows += [
        Case(so.newton, (cubic, 1.0, None, (1.3,)), dict(tol=1e-15), varmat=False),
        Case(so.newton, (cubic, np.array([0.5, 1.0, 1.5]), None,
                         (np.array([0.3, 1.3, 2.2]),)), dict(tol=1e-15), varmat=False),
        Case(so.fsolve, (system, np.ones(2), (P,)), dict(xtol=1e-14), varmat=False),
        Case(root_x, (P,), varmat=False), Case(root_given_jacobian_x, (P,), varmat=False),
        Case(root_scalar_root, (1.3,), varmat=False),
        Case(minimize_x, (P,), varmat=False), Case(minimize_value, (P,), varmat=False),
        Case(least_squares_x, (DATA,), varmat=False),
        Case(least_squares_fields, (DATA,), varmat=False),
        Case(si.quad, (damped, 0.2, 1.5, (P,)), dict(epsabs=1e-13, epsrel=1e-13),
             varmat=False),
        Case(quad_to_infinity, (P,), varmat=False)]
    return rows


SCIPY_OPTIMIZE_CASES = [] if so is None else _cases()
COVERS = [] if so is None else [so.root, so.root_scalar, so.minimize, so.least_squares]
