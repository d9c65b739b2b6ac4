"""psi^(n)(x + y) - psi^(n)(x) without cancellation (fwdad/rules/polygamma_gap.py), and
betaln and beta differentiated through it, to second order, against mpmath (50 digits):
written as the difference of SciPy's psi values, d betaln / da was 1.4e-6 relative off
at a = 1e6, b = 1e-3, and 1.8e-5 at a = 1e10, b = 1."""
import numpy as np
import pytest

import fwdad

sc = pytest.importorskip("scipy.special")
from fwdad.rules.polygamma_gap import polygamma_gap  # noqa: E402

# (n, x, y, psi^(n)(x + y) - psi^(n)(x)), with x + y exact
MPMATH = [
    (0, 10000000000.0, 1e-08, 1.0000000000500000204e-18),
    (0, 1000000.0, 0.001, 1.0000004995001661878e-9),
    (0, 1000.0, 0.01, 0.000010004951616975164712),
    (0, 50.0, 0.5, 0.010049997500499787655),
    (0, 3.0, 0.001, 0.00039485702976262452393),
    (0, 0.1, 0.1, 5.1347150438188882282),
    (0, 0.001, 10000.0, 1009.7858624029581242),
    (0, 2.0, -1.5, -2.3862943611198906188),
    (1, 10000000000.0, 1e-08, -1.0000000001000000199e-28),
    (1, 1000000.0, 0.001, -1.0000009990004985218e-15),
    (1, 1000.0, 0.01, -1.0009904850900325235e-8),
    (1, 50.0, 0.5, -0.00020199980005996603096),
    (1, 3.0, 0.001, -0.00015405435932048864246),
    (1, 0.1, 0.1, -75.165921945368971373),
    (1, 0.001, 10000.0, -1000001.6424331908372),
    (1, 2.0, -1.5, 4.2898681336964528729),
    (2, 10000000000.0, 1e-08, 2.0000000003000000389e-38),
    (2, 1000000.0, 0.001, 2.0000029970019940456e-21),
    (2, 1000.0, 0.01, 2.0029719403499960631e-11),
    (2, 50.0, 0.5, 8.1199800083938868092e-6),
    (2, 3.0, 0.001, 0.00011887130355025226334),
    (2, 0.1, 0.1, 1750.3834212639077818),
    (2, 0.001, 10000.0, 2000000002.3976321548),
    (2, 2.0, -1.5, -16.424682837915131425),
]
RTOL = 1e-15  # the largest error measured: 6.6e-16, over 96 pairs (x from 1e-3 to 1e10,
#               y from 1e-8 to 1e8) and n = 0 to 3


@pytest.mark.parametrize("n, x, y, want", MPMATH, ids=str)
def test_the_gap_matches_mpmath(n, x, y, want):
    assert polygamma_gap(n, x, y) == pytest.approx(want, rel=RTOL, abs=0)


def test_elementwise_with_broadcasting_and_outside_the_stable_domain():
    """Where x or x + y is not positive (betaln of negative arguments) the gap is the
    difference of SciPy's values, as before."""
    x, y = np.array([[1e6], [-0.5]]), np.array([1e-3, 2.0])
    out = polygamma_gap(0, x, y)
    assert out.shape == (2, 2)
    assert out[0, 0] == pytest.approx(1.0000004995001661878e-9, rel=RTOL)
    assert out[1, 1] == sc.psi(1.5) - sc.psi(-0.5)
    assert np.ndim(polygamma_gap(1, 2.0, 3.0)) == 0
    assert polygamma_gap(0, 4.0, 0.0) == 0.0


def _betaln(v):
    return sc.betaln(v[0], v[1])


def test_betaln_gradient_and_hessian_with_b_small_beside_a():
    """At a = 1e6, b = 1e-3: forward, reverse, and the Hessian by forward over reverse
    and by forward over forward."""
    v = np.array([1e6, 1e-3])
    grad = [-1.0000004995001661878e-9, -1014.3910819907744709]
    hessian = [[1.0000009990004985218e-15, -1.0000004990001656677e-6],
               [-1.0000004990001656677e-6, 1000001.6425321958268]]
    np.testing.assert_allclose(fwdad.grad(_betaln)(v), grad, rtol=1e-15)
    np.testing.assert_allclose(fwdad.jacfwd(_betaln)(v), grad, rtol=1e-15)
    np.testing.assert_allclose(fwdad.hessian(_betaln)(v), hessian, rtol=1e-14)
    np.testing.assert_allclose(fwdad.jacfwd(fwdad.jacfwd(_betaln))(v), hessian, rtol=1e-14)


def test_beta_gradient_with_b_small_beside_a():
    got = fwdad.jvp(lambda a: sc.beta(a, 1e-3), (1e6,), (1.0,))[1]
    assert got == pytest.approx(-9.8571165710896412908e-7, rel=1e-14)
