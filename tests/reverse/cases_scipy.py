"""The reverse rule cases of SciPy's special functions, linear algebra and ODE solvers
(fwdad/reverse/rules_scipy_special.py, rules_scipy_linalg.py, rules_scipy_integrate.py):
one row at least per
rrule, run through the dot-product test against forward mode and
through test_varmat_matvar. Empty where SciPy is absent.
"""
from __future__ import annotations

import numpy as np

from tests.reverse.case import POS, UNIT, V3, A, Case
from tests.rules import scipy_integrate_cases as ode
from tests.rules.scipy_linalg_cases import (
    LOPSIDED_SPD,
    PIVOTED,
    RANK_TWO,
    SMALL,
    SPD,
    SPD_STACK,
    SQUARE,
    SQUARE4,
    cho_solve_of,
    cho_solve_of_a_rebuilt_pair,
    lu_solve_of,
    lu_solve_of_a_rebuilt_pair,
)

try:
    import scipy.integrate as si
    import scipy.linalg as sl
    import scipy.special as sc

    from fwdad.rules.exprel import exprel_derivative
    from fwdad.rules.normal_log_cdf import log_ndtr_derivative
    from fwdad.rules.polygamma_gap import polygamma_gap
    from fwdad.rules.scaled_bessel import ive_derivative
except ImportError:  # SciPy is optional
    sc = sl = si = None

PROBABILITY = (UNIT + 1.0) / 2.0  # in (0.1, 0.9): logit, ndtri
ORDERS = np.array([[0, 1, 2], [3, 1, 0]])  # integer orders: constants


def _zeta_into(q):
    """zeta with out= given by position (a bare TypeError before)."""
    r = q * 0.0
    sc.zeta(3.0, q, r)
    return r * q


def _cases() -> list:
    real = [sc.erf, sc.erfc, sc.ndtr, sc.log_ndtr, sc.expit, sc.log_expit, sc.i0, sc.i1,
            sc.i0e, sc.i1e]
    positive = [sc.gammaln, sc.loggamma, sc.gamma, sc.psi, sc.entr]
    out = [Case(f, (A,)) for f in real] + [Case(f, (POS,)) for f in positive]
    out += [Case(sc.erfinv, (UNIT,)), Case(sc.erfcinv, (PROBABILITY,)),
            Case(sc.ndtri, (PROBABILITY,)), Case(sc.logit, (PROBABILITY,)),
            Case(sc.i1, (np.array([0.0, -1.3, 2.2]),))]  # the limit at 0
    out += [Case(f, (POS, POS[::-1])) for f in (sc.betaln, sc.beta, sc.rel_entr,
                                                 sc.kl_div, sc.xlogy)]
    out += [Case(sc.xlogy, (UNIT, POS[0])), Case(sc.xlog1py, (UNIT, POS)),
            Case(sc.xlogy, (np.array([0.0, 0.5]), np.array([1.2, 0.7])))]
    out += [Case(f, (ORDERS, POS)) for f in (sc.kv, sc.iv, sc.polygamma)]
    out += [Case(ive_derivative, (2, 0, A)), Case(ive_derivative, (1, 1, A * 2e3))]
    out += [Case(log_ndtr_derivative, (2, A)), Case(log_ndtr_derivative, (3, A * 20.0))]
    out += [Case(polygamma_gap, (0, POS, POS[0] + 2.0)), Case(polygamma_gap, (1, 40.0, 1e-3))]
    out += [Case(np.i0, (A * 3.0,))]
    out += [Case(f, (A * 3.0,)) for f in (sc.dawsn, sc.erfcx, sc.exprel, sc.cbrt,
                                          sc.softplus)]
    out += [Case(sc.exprel, (A * 1e-7,)), Case(sc.spence, (POS,)),
            Case(sc.spence, (np.array([1.0, 1.0 + 1e-8, 0.3]),)),
            Case(exprel_derivative, (2, A * 3.0)), Case(exprel_derivative, (1, A * 1e-6))]
    out += [Case(sc.owens_t, (A, A[::-1])), Case(sc.boxcox, (POS, UNIT)),
            Case(sc.boxcox1p, (POS - 0.4, UNIT)), Case(sc.huber, (POS, UNIT * 2.0)),
            Case(sc.pseudo_huber, (POS, UNIT * 2.0)), Case(sc.boxcox, (POS, 1e-9 * UNIT))]
    out += [Case(sc.agm, (POS, POS[::-1] * 2.0)), Case(sc.agm, (-POS, -POS)),
            Case(sc.diric, (A * 3.0, 5)), Case(sc.diric, (np.array([0.0, 2 * np.pi]), 4))]
    out += [Case(sc.lambertw, (POS,), varmat=False),  # (complex: varmat only)
            Case(sc.lambertw, (A * 0.3,), varmat=False)]
    out += [Case(f, (2, POS)) for f in (sc.gammainc, sc.gammaincc)]
    out += [Case(sc.zeta, (3, POS)), Case(sc.zeta, (ORDERS + 2, POS)),
            Case(_zeta_into, (POS,))]
    out += [Case(sc.logsumexp, (A,)), Case(sc.logsumexp, (A,), dict(axis=1)),
            Case(sc.logsumexp, (A,), dict(axis=0, keepdims=True)),
            Case(sc.logsumexp, (A, 1, np.abs(A) + 0.1)),  # b a variable, by position
            Case(sc.logsumexp, (A[:2, :3], (0, 1), POS)),
            Case(sc.logsumexp, (V3, 0, POS)),  # b with more axes than a
            Case(sc.softmax, (A,)), Case(sc.softmax, (A,), dict(axis=1)),
            Case(sc.log_softmax, (A,)), Case(sc.log_softmax, (A,), dict(axis=0)),
            Case(sc.logsumexp, ([0.3, -1.2, 0.5],)),  # a list of variables: an array,
            Case(sc.softmax, ([0.3, -1.2],))]           # as SciPy reads it
    return out


def _linalg_cases() -> list:
    return [Case(sl.solve, (SQUARE, V3)), Case(sl.solve, (SQUARE, A)),
            Case(sl.solve, (SQUARE, A), dict(transposed=True)),
            Case(sl.solve, (LOPSIDED_SPD, A), dict(assume_a="pos", lower=True)),
            Case(sl.solve, (LOPSIDED_SPD.T.copy(), V3), dict(assume_a="sym")),
            Case(sl.solve, (LOPSIDED_SPD, V3), dict(assume_a="pos", lower=True,
                                                     transposed=True)),
            Case(sl.solve_triangular, (SQUARE, V3)),
            Case(sl.solve_triangular, (SQUARE, A), dict(trans=1, lower=True)),
            Case(sl.solve_triangular, (SQUARE, A), dict(trans="T", unit_diagonal=True)),
            Case(sl.solve_triangular, (SQUARE, V3), dict(lower=True, unit_diagonal=True)),
            Case(sl.inv, (SQUARE,)),
            Case(sl.inv, (LOPSIDED_SPD,), dict(assume_a="sym", lower=True)),
            Case(sl.det, (SQUARE,)), Case(sl.det, (RANK_TWO,)),
            Case(sl.cholesky, (LOPSIDED_SPD.T.copy(),)),
            Case(sl.cholesky, (LOPSIDED_SPD,), dict(lower=True)), Case(sl.cholesky, (SPD,)),
            Case(sl.expm, (SMALL,)), Case(sl.expm, (SQUARE / 3.0,)),
            Case(sl.expm_frechet, (SMALL, SQUARE / 3.0), dict(compute_expm=False)),
            Case(sl.expm_frechet, (SMALL, SQUARE / 3.0))] + _factor_cases() + \
        _spectral_cases() + _equation_cases()


def _factor_cases() -> list:
    from fwdad.reverse.rules_scipy_linalg import cho_solve_parts, lu_solve_parts
    c, lower = sl.cho_factor(SPD)
    lu, piv = sl.lu_factor(PIVOTED)
    return [Case(sl.cho_factor, (LOPSIDED_SPD,), dict(lower=True)),
            Case(sl.cho_factor, (LOPSIDED_SPD.T.copy(),)),
            Case(sl.cho_solve, ((c, lower), A)), Case(cho_solve_parts, (c, V3, lower)),
            Case(cho_solve_of, (SPD, V3)), Case(cho_solve_of, (LOPSIDED_SPD, A, True)),
            Case(cho_solve_of_a_rebuilt_pair, (LOPSIDED_SPD, V3)),
            Case(sl.lu_factor, (PIVOTED,)), Case(sl.lu_factor, (SQUARE,)),
            Case(sl.lu_solve, ((lu, piv), A)), Case(lu_solve_parts, (lu, piv, V3, 1)),
            Case(lu_solve_of, (PIVOTED, V3)), Case(lu_solve_of, (PIVOTED, A, 1)),
            Case(lu_solve_of_a_rebuilt_pair, (PIVOTED, A))]


def _spectral_cases() -> list:
    return [Case(sl.eigh, (LOPSIDED_SPD,)),
            Case(sl.eigh, (LOPSIDED_SPD.T.copy(),), dict(lower=False)),
            Case(sl.eigh, (LOPSIDED_SPD,), dict(eigvals_only=True)),
            Case(sl.eigh, (SPD_STACK,)),
            Case(sl.eigh, (LOPSIDED_SPD,), dict(subset_by_index=[1, 2])),
            Case(sl.eigh, (SPD,), dict(subset_by_value=(5.0, np.inf))),
            Case(sl.eigh, (SPD_STACK,), dict(subset_by_index=(0, 1), eigvals_only=True)),
            Case(sl.eigvalsh, (SPD,), dict(subset_by_value=(-np.inf, 10.0))),
            Case(sl.eigvalsh, (LOPSIDED_SPD,)),
            Case(sl.eigvalsh, (LOPSIDED_SPD.T.copy(),), dict(lower=False)),
            Case(sl.svd, (SQUARE,)), Case(sl.svd, (A,), dict(full_matrices=False)),
            Case(sl.svd, (A.T.copy(), False)), Case(sl.svd, (A,), dict(compute_uv=False)),
            Case(sl.svd, (SPD_STACK,)),
            Case(sl.svdvals, (A,)), Case(sl.svdvals, (A.T.copy(),))]


def _equation_cases() -> list:
    return [Case(sl.solve_sylvester, (SQUARE, SQUARE4, A)),
            Case(sl.solve_sylvester, (SQUARE, SPD, SQUARE.T.copy())),
            Case(sl.solve_sylvester, (SPD_STACK, SQUARE, SQUARE)),
            Case(sl.solve_continuous_lyapunov, (SQUARE, SPD)),
            Case(sl.solve_continuous_lyapunov, (-SQUARE.T.copy(), SQUARE)),
            Case(sl.solve_continuous_lyapunov, (SPD_STACK, SPD)),
            Case(sl.sqrtm, (SQUARE,)), Case(sl.sqrtm, (SPD,)), Case(sl.sqrtm, (SPD_STACK,)),
            Case(sl.logm, (SQUARE,)), Case(sl.logm, (SPD,)), Case(sl.logm, (SPD_STACK,))]


def _ode_cases() -> list:
    """The solvers' rows of tests/rules/scipy_integrate_cases.py: the dot-product test
    against forward mode (the same augmented solve: rtol 1e-7 covers the two solves of
    the nonlinear problems at rtol 1e-10). Not through test_varmat_matvar: the reverse
    rule reads every input's values and makes the outputs in the tape's layout."""
    exact = [Case(si.solve_ivp, (ode.drift, (0.0, 2.0), ode.Y2, "RK45", ode.T_EVAL, False,
                                 None, False, (0.7, -0.3)), varmat=False),
             Case(si.odeint, (ode.constant_drift_yt, ode.Y2, ode.TIMES, (0.7, -0.3)),
                  varmat=False)]
    t_eval = np.array([0.7, 1.5, 2.9])
    tight = [Case(ode.lv_tightly, (ode.LV_Y0, 1.1, 3.0, t_eval)),
             Case(ode.robertson_tightly, (ode.ROBERTSON_Y0, 0.04, np.array([0.1, 1.0, 9.0]))),
             Case(ode.lv_odeint_tightly, (ode.LV_Y0, 1.1, np.array([0.0, 0.7, 1.5, 2.9])))]
    for case in tight:
        case.rtol, case.varmat = 1e-7, False
    return exact + tight


SCIPY_CASES = [] if sc is None else _cases() + _linalg_cases() + _ode_cases()
