"""The case tables of the rules of SciPy's solvers and quad (fwdad/rules/scipy_roots.py,
scipy_minimize.py, scipy_quad.py): test_rule compares each with central finite
differences of the solver re-run at the perturbed arguments, so the solves are tight.
A solver that returns an OptimizeResult has a row through a function that reads `.x`
(its other fields, fjac and hess_inv, have no tangent): COVERS lists those solvers for
the coverage meta-test. Empty where SciPy is absent."""
from __future__ import annotations

import numpy as np

from tests.rules.case import Case

try:
    import scipy.integrate as si
    import scipy.optimize as so
except ImportError:  # SciPy is optional
    si = so = None

P = np.array([2.0, 0.5])
T = np.linspace(0.0, 2.0, 9)
DATA = 2.5 * np.exp(-1.3 * T) + 0.05 * np.sin(7.0 * T)  # not a perfect fit: r != 0


# ---- the user's functions -----------------------------------------------------------------
def cubic(x, p):
    """One root in [0, 3] for p > 0."""
    return x ** 3 + p * x - 2.0


def system(x, p):
    """Two equations, a nonsingular Jacobian near the root from x0 = (1, 1)."""
    return np.array([x[0] ** 2 + x[1] - p[0], x[0] - x[1] ** 3 + p[1]])


def system_and_jacobian(x, p):
    return system(x, p), np.array([[2.0 * x[0], 1.0], [1.0, -3.0 * x[1] ** 2]])


def bowl(x, p):
    """A strict minimum, where p moves it and bends the bowl."""
    return np.sum((x - p) ** 2 * np.array([1.0, 3.0])) + x[0] ** 4 + x[0] * x[1]


def decay(q, data):
    """Residuals of an exponential decay fitted to data."""
    return q[0] * np.exp(-q[1] * T) - data


def damped(t, p):
    return np.exp(-p[0] * t) * np.sin(p[1] * t)


if so is not None:  # (their exact derivatives make the solves converge tightly)
    import fwdad.optimize
    BOWL_GRADIENT, BOWL_HESSIAN = fwdad.optimize.jac(bowl), fwdad.optimize.hess(bowl)
    DECAY_JACOBIAN = fwdad.optimize.jac(decay)


# ---- through the fields that carry tangents -------------------------------------------------
def root_x(p, method="hybr"):
    return so.root(system, np.ones(2), args=(p,), method=method, tol=1e-14).x


def root_given_jacobian_x(p):
    return so.root(system_and_jacobian, np.ones(2), args=(p,), jac=True, tol=1e-14).x


def root_scalar_root(p, method="brentq"):
    return so.root_scalar(cubic, args=(p,), method=method, bracket=(0.0, 3.0),
                          xtol=1e-15).root


def minimize_x(p):
    return so.minimize(bowl, np.zeros(2), args=(p,), method="trust-ncg", jac=BOWL_GRADIENT,
                       hess=BOWL_HESSIAN, options={"gtol": 1e-10}).x


def minimize_value(p):
    return so.minimize(bowl, np.zeros(2), args=(p,), method="BFGS",
                       options={"gtol": 1e-10}).fun


def least_squares_x(data):
    return so.least_squares(decay, np.ones(2), args=(data,), jac=DECAY_JACOBIAN,
                            method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15).x


def quad_to_infinity(p):
    return si.quad(damped, 0.0, np.inf, args=(p,), epsabs=1e-13, epsrel=1e-13)[0]


def _rows() -> list:
    tight = dict(xtol=1e-15)
    return [
        Case(so.brentq, cubic, 0.0, 3.0, (1.3,), **tight),
        Case(so.brenth, cubic, 0.0, 3.0, (1.3,), **tight),
        Case(so.ridder, cubic, 0.0, 3.0, (0.4,), **tight),
        Case(so.bisect, cubic, 0.0, 3.0, (1.3,), **tight),
        Case(so.toms748, cubic, 0.0, 3.0, (1.3,), **tight),
        Case(so.newton, cubic, 1.0, None, (1.3,), tol=1e-15),
        Case(so.newton, cubic, np.array([0.5, 1.0, 1.5]), None, (np.array([0.3, 1.3, 2.2]),),
             tol=1e-15),  # one equation per entry
        Case(so.fsolve, system, np.ones(2), (P,), xtol=1e-14),
        Case(root_x, P), Case(root_x, P, "lm"), Case(root_given_jacobian_x, P),
        Case(root_scalar_root, 1.3), Case(root_scalar_root, 0.7, "toms748"),
        # (the minimizers stop short of float64's precision: ~1e-11 left in x, which
        # finite differences divide by the step; test_scipy_optimize.py checks these
        # tangents against the minimizer refined by Newton's method, to 1e-8)
        Case(minimize_x, P, rtol=1e-4), Case(minimize_value, P),
        Case(least_squares_x, DATA, rtol=1e-4),
        Case(si.quad, damped, 0.2, 1.5, (P,), epsabs=1e-13, epsrel=1e-13),
        Case(quad_to_infinity, P),
    ]


SCIPY_OPTIMIZE_CASES = [] if so is None else _rows()
# The solvers whose rows read a field of their result (root_x and the others above).
COVERS = [] if so is None else [so.root, so.root_scalar, so.minimize, so.least_squares]
