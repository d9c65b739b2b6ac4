"""The case table of the SciPy rules (fwdad/rules/scipy_special.py, scipy_logsumexp.py):
one row at least per function, as in cases.py. Empty where SciPy is absent (its rules
are not registered there either), so the tables that include it still load.

An order SciPy has no derivative in (kv's v, gammainc's a, polygamma's n, zeta's x) is
given as an int: test_rule perturbs float arguments only. tests/rules/test_scipy_special.py
checks that a float order with a tangent is refused.
"""
from __future__ import annotations

import numpy as np

from fwdad.testing.strategies import (
    ABOVE_MINUS_ONE,
    GAMMA_POSITIVE,
    NONZERO,
    POSITIVE,
    REAL,
    UNIT_OPEN,
    Domain,
)
from tests.rules.case import C3, M23, POS3, V3, W3, Z3, Case

try:
    import scipy.special as sc

    from fwdad.rules.exprel import exprel_derivative
    from fwdad.rules.normal_log_cdf import log_ndtr_derivative
    from fwdad.rules.polygamma_gap import polygamma_gap
    from fwdad.rules.scaled_bessel import ive_derivative
except ImportError:  # SciPy is optional
    sc = None

PROBABILITY = Domain("PROBABILITY", 0.05, 0.95)   # logit, ndtri
ERFC_RANGE = Domain("ERFC_RANGE", 0.1, 1.9)       # erfcinv: (0, 2)
P3 = np.array([0.2, 0.55, 0.9])
X23 = np.array([[0.0, -1.3, 0.4], [2.2, 0.7, -0.05]])  # with a 0: the limits of i1, i1e


def _unary_rows() -> list:
    return [
        Case(sc.gammaln, 1.7, domain=GAMMA_POSITIVE), Case(sc.gammaln, POS3),
        Case(sc.gammaln, -0.4),  # log |gamma| between the poles: psi still
        Case(sc.loggamma, 1.7, domain=GAMMA_POSITIVE), Case(sc.loggamma, POS3),
        Case(sc.gamma, 1.7, domain=GAMMA_POSITIVE), Case(sc.gamma, -1.4),
        Case(sc.psi, 1.7, domain=GAMMA_POSITIVE), Case(sc.psi, POS3),
        Case(sc.digamma, POS3 + 1.0, domain=GAMMA_POSITIVE),
        Case(sc.erf, 0.3), Case(sc.erf, M23), Case(sc.erfc, M23),
        Case(sc.erfinv, 0.3, domain=UNIT_OPEN), Case(sc.erfinv, V3 / 2.0),
        Case(sc.erfcinv, 0.4, domain=ERFC_RANGE), Case(sc.erfcinv, P3 * 2.0),
        Case(sc.ndtr, M23), Case(sc.log_ndtr, M23), Case(sc.log_ndtr, -30.0),
        Case(sc.ndtri, 0.3, domain=PROBABILITY), Case(sc.ndtri, P3),
        Case(sc.expit, 0.3), Case(sc.expit, M23), Case(sc.logit, 0.3, domain=PROBABILITY),
        Case(sc.logit, P3), Case(sc.log_expit, M23), Case(sc.log_expit, -40.0),
        Case(sc.i0, M23), Case(sc.i1, M23), Case(sc.i1, X23), Case(sc.i1, 0.0),
        Case(sc.i0e, 0.3, domain=NONZERO), Case(sc.i0e, M23), Case(sc.i1e, M23),
        Case(sc.i1e, X23), Case(sc.entr, 1.7, domain=POSITIVE), Case(sc.entr, POS3),
        Case(sc.erf, V3, Z3), Case(sc.gammaln, POS3, Z3.copy()),  # out= given positionally
        Case(sc.erf, [0.3, -1.2]), Case(sc.expit, (0.3, -1.2)),  # lists: arrays, as in SciPy
        Case(sc.gammaln, POS3.astype(np.float32), rtol=1e-3),  # SciPy's float32 loops
        Case(sc.erfinv, (V3 / 2.0).astype(np.float32), rtol=1e-3),
        Case(sc.dawsn, M23 * 3.0), Case(sc.dawsn, 0.3), Case(sc.erfcx, M23 * 3.0),
        Case(sc.erfcx, 40.0), Case(sc.exprel, M23), Case(sc.exprel, X23 * 1e-7),
        Case(sc.exprel, 30.0), Case(sc.spence, POS3), Case(sc.spence, 1.0),  # (z = 1: -1)
        Case(sc.spence, np.array([1.0 - 1e-9, 1.0 + 1e-7, 0.01])),
        Case(sc.cbrt, M23), Case(sc.cbrt, -8.0),
        Case(sc.softplus, M23), Case(sc.softplus, 0.3), Case(sc.softplus, [-40.0, 50.0]),
        Case(exprel_derivative, 2, M23 * 3.0), Case(exprel_derivative, 1, X23 * 1e-6),
        Case(exprel_derivative, 3, np.array([-3.9, 4.1, -9.0, 25.0])),  # both sides
    ]


def _binary_rows() -> list:
    return [
        Case(sc.betaln, 1.7, 0.6, domain=GAMMA_POSITIVE), Case(sc.betaln, M23 + 2.0, POS3),
        Case(sc.beta, 1.7, 0.6, domain=GAMMA_POSITIVE), Case(sc.beta, POS3, 2.5),
        Case(sc.xlogy, 0.3, 1.7, domain=(REAL, POSITIVE)), Case(sc.xlogy, M23, POS3),
        Case(sc.xlogy, 0.0, 1.7), Case(sc.xlogy, [0.3, 0.5], 1.7),
        Case(sc.xlog1py, 0.3, 0.6, domain=(REAL, ABOVE_MINUS_ONE)), Case(sc.xlog1py, M23, W3),
        Case(sc.rel_entr, 0.3, 1.7, domain=POSITIVE), Case(sc.rel_entr, POS3, POS3[::-1]),
        Case(sc.kl_div, 0.3, 1.7, domain=POSITIVE), Case(sc.kl_div, POS3, POS3[::-1]),
        Case(sc.kv, 2, 1.7, domain=POSITIVE), Case(sc.kv, np.array([0, 1, 3]), POS3),
        Case(sc.kv, 0, POS3, Z3.copy()),
        Case(sc.iv, 2, 1.7, domain=POSITIVE), Case(sc.iv, np.array([0, 1, 3]), M23),
        Case(sc.gammainc, 2, 1.7, domain=POSITIVE), Case(sc.gammainc, 1, np.array([0.3, 0.5])),
        Case(sc.gammaincc, 3, POS3),
        Case(sc.polygamma, 1, 1.7, domain=POSITIVE), Case(sc.polygamma, np.array([0, 1, 2]),
                                                           POS3),
        Case(sc.polygamma, 0, M23 + 2.0),
        Case(sc.zeta, 3, 1.7, domain=POSITIVE), Case(sc.zeta, np.array([2, 3, 4]), POS3),
        Case(sc.zeta, 3, POS3, Z3.copy()),
        # i0e'' and, past where Hankel's expansion takes over, i1e' (scaled_bessel.py)
        Case(ive_derivative, 2, 0, M23), Case(ive_derivative, 1, 1, M23 * 2e3),
        # log_ndtr'' and ''' on both sides of where the polynomial takes over, and far left
        Case(log_ndtr_derivative, 2, M23), Case(log_ndtr_derivative, 3, M23 * 20.0),
        Case(log_ndtr_derivative, 3, -300.0),
        # psi(x + y) - psi(x), its next order, and with y small beside x
        Case(polygamma_gap, 0, M23 + 2.0, POS3), Case(polygamma_gap, 1, 40.0, 1e-3),
        Case(np.i0, M23 * 3.0), Case(np.i0, 0.4),  # (NumPy's, whose derivative is SciPy's i1)
        Case(sc.owens_t, M23, W3), Case(sc.owens_t, 0.3, -1.7), Case(sc.owens_t, 0.0, 0.5),
        Case(sc.boxcox, POS3, M23), Case(sc.boxcox, 1.7, 0.0), Case(sc.boxcox, 0.3, 1e-9),
        Case(sc.boxcox1p, POS3 - 0.4, M23), Case(sc.boxcox1p, 0.7, 0.0),
        Case(sc.huber, POS3, M23), Case(sc.huber, 1.0, np.array([-2.5, 0.3, 1.7])),
        Case(sc.pseudo_huber, POS3, M23), Case(sc.pseudo_huber, 2.0, 1e-4),
        Case(sc.pseudo_huber, 1e-3, np.array([-2.5, 0.3])),  # r far beyond d
        Case(sc.lambertw, POS3), Case(sc.lambertw, np.array([-0.3, 0.2, 4.0])),
        Case(sc.lambertw, C3 * 0.5), Case(sc.lambertw, C3, -1),  # complex, other branches
        Case(sc.lambertw, 0.5 + 0.4j, 1),
        Case(sc.agm, POS3, POS3[::-1]), Case(sc.agm, -POS3, -2.0 * POS3),  # both negative
        Case(sc.agm, 1.5, 1.5), Case(sc.agm, 0.05, 3.0),
        Case(sc.diric, M23 * 3.0, 5), Case(sc.diric, np.array([0.0, 2 * np.pi, 1e-7]), 4),
        Case(sc.diric, V3, np.array([1, 2, 7])),
    ]


def _logsumexp_rows() -> list:
    b23 = np.array([[0.5, 1.2, 0.3], [1.1, 0.2, 0.9]])
    return [
        Case(sc.logsumexp, M23), Case(sc.logsumexp, M23, axis=1),
        Case(sc.logsumexp, M23, axis=0, keepdims=True), Case(sc.logsumexp, M23, (0, 1)),
        Case(sc.logsumexp, M23, 1, b23), Case(sc.logsumexp, M23, 1, POS3),  # b broadcast
        Case(sc.logsumexp, V3, None, POS3.reshape(3, 1)),  # b with more axes than a
        Case(sc.logsumexp, M23, 1, np.array([[0.5, -1.2, 0.3], [-1.1, 0.2, -0.9]]),
             return_sign=True),  # sums of either sign: log |s| and its sign
        Case(sc.logsumexp, M23, b=b23, axis=0),  # b= as a constant
        Case(sc.logsumexp, [0.3, -1.2, 0.5]),
        Case(sc.softmax, M23), Case(sc.softmax, M23, axis=1), Case(sc.softmax, V3, axis=0),
        Case(sc.log_softmax, M23), Case(sc.log_softmax, M23, axis=0),
        Case(sc.log_softmax, V3),
    ]


SCIPY_CASES = [] if sc is None else _unary_rows() + _binary_rows() + _logsumexp_rows()


# ---- second order: the variants the first row of each function does not reach ------------
def logsumexp_signed(a, b):
    """sign * exp(log|s|) = s: the sign output too, through both outputs of the rule."""
    y, sign = sc.logsumexp(a, 1, b, return_sign=True)
    return sign * y


def kv_of_a_real_order(x):
    return sc.kv(1.5, x) + sc.iv(0.5, x)  # (a float order: a constant, not refused)


def _second_order_rows() -> list:
    b23 = np.array([[0.5, -1.2, 0.3], [-1.1, 0.2, -0.9]])
    return [  # (what it covers, function, arguments, keyword arguments)
        (sc.logsumexp, sc.logsumexp, (M23, 1, np.abs(b23)), {}),
        (sc.logsumexp, sc.logsumexp, (M23, 0, POS3), {"keepdims": True}),
        (sc.logsumexp, logsumexp_signed, (M23, b23), {}),
        (sc.softmax, sc.softmax, (M23,), {"axis": 1}),
        (sc.log_softmax, sc.log_softmax, (M23,), {"axis": 0}),
        (sc.i1, sc.i1, (X23,), {}), (sc.i1e, sc.i1e, (X23 + 0.1,), {}),
        (sc.kv, kv_of_a_real_order, (POS3,), {}),
        (sc.polygamma, sc.polygamma, (np.array([0, 1, 2]), POS3), {}),
        (sc.gammaincc, sc.gammaincc, (np.array([1, 2, 3]), POS3), {}),
    ]


SCIPY_SECOND_ORDER_ROWS = [] if sc is None else _second_order_rows()
