"""The case table of the ODE solver rules (fwdad/rules/scipy_integrate.py), and the ODE
problems their tests share. Empty where SciPy is absent.

test_rule perturbs every float argument (t_span, y0, t_eval, args) and compares with
central differences of the solver itself. That needs a solver whose result is smooth in
its arguments to far below the step h:
- rows of solve_ivp and odeint themselves integrate polynomial solutions, which the
  methods named integrate exactly (no step is rejected, no truncation error), at SciPy's
  default tolerances (a Case cannot pass rtol= on: its own rtol is the test's);
- rows of `*_tightly` (wrappers) integrate nonlinear problems, Lotka-Volterra and the
  stiff Robertson kinetics, at rtol=1e-10 and atol=1e-12, with a step h of 1e-5. Their
  batch check is off (batch=0): a batch of tangents shares one error control, so its
  steps differ from one tangent's, by the tolerance (tests/rules/test_scipy_integrate.py
  checks jacfwd against finite differences instead).
"""
from __future__ import annotations

import numpy as np

from tests.rules.case import Case

try:
    import scipy.integrate as si
except ImportError:  # SciPy is optional
    si = None

TIGHT = dict(rtol=1e-10, atol=1e-12)
Y2 = np.array([0.4, -1.1])
T_EVAL = np.array([0.5, 1.2, 1.8])  # inside (0, 2), also when test_rule moves the ends
TIMES = np.array([0.0, 0.5, 1.2, 2.0])  # odeint's: the first is the start time


# ---- problems --------------------------------------------------------------------------------
def drift(t, y, a, b):
    """A quadratic solution: RK45, RK23, DOP853 and Radau integrate it exactly."""
    return np.array([a + b * t, a * t * t - b])


def constant_drift(t, y, a, b):
    """A linear solution: BDF and LSODA integrate it exactly too."""
    return [a, -b * a]


def constant_drift_yt(y, t, a, b):
    """constant_drift with odeint's argument order."""
    return [a, -b * a]


def lotka_volterra(t, y, alpha, beta, delta, gamma):
    prey, predator = y
    return [alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator]


def robertson(t, y, k1, k2, k3):
    """Robertson's stiff chemical kinetics (rates 0.04, 3e7, 1e4)."""
    a, b, c = y
    return [-k1 * a + k3 * b * c, k1 * a - k3 * b * c - k2 * b * b, k2 * b * b]


LV_Y0, LV_ARGS = np.array([1.0, 0.5]), (1.1, 0.4, 0.1, 0.4)
ROBERTSON_Y0, ROBERTSON_ARGS = np.array([1.0, 0.0, 0.0]), (0.04, 3e7, 1e4)


# ---- wrappers at tight tolerances --------------------------------------------------------------
def lv_tightly(y0, alpha, t_end, t_eval, method="DOP853"):
    """res.y of Lotka-Volterra: y0, a parameter, the end time and t_eval differentiable."""
    res = si.solve_ivp(lotka_volterra, (0.0, t_end), y0, method=method, t_eval=t_eval,
                       args=(alpha,) + LV_ARGS[1:], **TIGHT)
    return res.y


def robertson_tightly(y0, k1, t_eval, method="BDF"):
    """res.y of the stiff Robertson kinetics to t = 10."""
    res = si.solve_ivp(robertson, (0.0, 10.0), y0, method=method, t_eval=t_eval,
                       args=(k1,) + ROBERTSON_ARGS[1:], **TIGHT)
    return res.y


def lv_odeint_tightly(y0, alpha, times):
    return si.odeint(lotka_volterra, y0, times, args=(alpha,) + LV_ARGS[1:], tfirst=True,
                     **TIGHT)


def lv_dense_tightly(y0, alpha, t):
    """res.sol(t) of Lotka-Volterra (dense_output=True)."""
    res = si.solve_ivp(lotka_volterra, (0.0, 3.0), y0, method="DOP853", dense_output=True,
                       args=(alpha,) + LV_ARGS[1:], **TIGHT)
    return res.sol(t)


def _rows() -> list:
    exact = [Case(si.solve_ivp, drift, (0.0, 2.0), Y2, method, T_EVAL, False, None, False,
                  (0.7, -0.3)) for method in ("RK45", "DOP853", "RK23", "Radau")]
    exact += [Case(si.solve_ivp, constant_drift, (0.0, 2.0), Y2, method, T_EVAL, False,
                   None, False, (0.7, -0.3)) for method in ("BDF", "LSODA")]
    exact += [Case(si.odeint, constant_drift_yt, Y2, TIMES, (0.7, -0.3)),
              Case(si.odeint, constant_drift, Y2, TIMES, (0.7, -0.3), tfirst=True)]
    loose = dict(rtol=1e-4, batch=0)  # (h = rtol: far above the solver's 1e-10)
    tight = [Case(lv_tightly, LV_Y0, 1.1, 3.0, np.array([0.7, 1.5, 2.9]), **loose),
             Case(lv_tightly, LV_Y0, 1.1, 3.0, np.array([0.7, 1.5, 2.9]), "RK45", **loose),
             Case(robertson_tightly, ROBERTSON_Y0, 0.04, np.array([0.1, 1.0, 9.0]), **loose),
             Case(robertson_tightly, ROBERTSON_Y0, 0.04, np.array([0.1, 1.0, 9.0]), "Radau",
                  **loose),
             Case(lv_odeint_tightly, LV_Y0, 1.1, np.array([0.0, 0.7, 1.5, 2.9]), **loose),
             Case(lv_dense_tightly, LV_Y0, 1.1, np.array([0.4, 1.7, 2.8]), **loose),
             Case(lv_dense_tightly, LV_Y0, 1.1, 1.7, **loose)]
    return exact + tight


SCIPY_INTEGRATE_CASES = [] if si is None else _rows()
