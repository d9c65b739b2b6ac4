"""Rules whose derivative formula is right at first order but was wrong differentiated
again (hessian, hvp, jacfwd of jvp, jvp of jvp of jvp): a difference of nearly equal
numbers, or a value replaced by its limit where the formula is 0 / 0, whose derivative
is then that of a constant. The siblings of i0e's (tests/rules/test_scaled_bessel.py).
Each against a closed form: a Taylor series at 0, or the exact Hessian."""
import math

import numpy as np
import pytest

import fwdad

sc = pytest.importorskip("scipy.special")


def d(f):
    """x -> f'(x) by jvp: d(d(f)) nests two levels."""
    return lambda x: fwdad.jvp(f, (x,), (1.0,))[1]


def _orders(f, x, count=3):
    """[f'(x), f''(x), ...] by repeated jvp."""
    out, g = [], f
    for _ in range(count):
        g = d(g)
        out.append(float(g(x)))
    return out


# ---- np.sinc near 0: (cos(pi x) - sinc(x)) / x cancelled -----------------------------------
def _sinc_series(x):
    """sinc(x) = 1 - (pi x)^2 / 6 + (pi x)^4 / 120 - (pi x)^6 / 5040: its first three
    derivatives (exact to rounding for |x| < 1e-3)."""
    p = math.pi
    return [-p**2 * x / 3 + p**4 * x**3 / 30 - p**6 * x**5 / 840,
            -p**2 / 3 + p**4 * x**2 / 10 - p**6 * x**4 / 168,
            p**4 * x / 5 - p**6 * x**3 / 42]


def _sinc(x):
    return np.sinc(x)


@pytest.mark.parametrize("x", [0.0, 1e-8, -3e-6, 1e-4])
def test_sinc_near_zero_matches_its_taylor_series(x):
    """At 1e-8 the first derivative was 30% off, the third 6e8 (not 2e-7), and at 0 the
    second was 0 (not -pi^2 / 3)."""
    want = _sinc_series(x)
    np.testing.assert_allclose(_orders(_sinc, x), want, rtol=1e-12, atol=1e-15)
    v = np.array([x, 0.0])
    second = fwdad.hessian(lambda v: np.sinc(v[0]) + v[1])(v)[0, 0]
    assert second == pytest.approx(want[1], rel=1e-12)
    assert fwdad.hvp(lambda v: np.sum(np.sinc(v)), (v,), (np.array([1.0, 0.0]),))[0][0] \
        == pytest.approx(want[1], rel=1e-12)


def test_sinc_away_from_zero_matches_differences():
    """Past 1, where the rule switches from quadrature to Leibniz's rule."""
    second = d(d(_sinc))
    for x in (0.7, 1.0, 1.3, -4.2):
        h = 1e-4
        assert d(second)(x) == pytest.approx((second(x + h) - second(x - h)) / (2 * h),
                                             rel=1e-7)


def test_sinc_first_derivative_is_the_same_on_both_sides_of_its_handover():
    """At first order the rule hands over to Leibniz's rule from 0.25 (cheaper); the
    quadrature, exact to rounding, agrees with it there."""
    from fwdad.rules.sinc import _quadrature, sinc_derivative
    x = np.linspace(0.2, 1.0, 81)
    np.testing.assert_allclose(sinc_derivative(1, x), _quadrature(1, x), rtol=1e-14,
                               atol=1e-15)


# ---- i1 at 0: i0 - i1 / x, replaced by 1/2 at 0 ---------------------------------------------
def _i1(x):
    return sc.i1(x)


def test_i1_at_zero_matches_its_taylor_series():
    """I1(x) = x / 2 + x^3 / 16 + ...: derivatives 1/2, 0, 3/8 at 0 (the third was 0)."""
    np.testing.assert_allclose(_orders(_i1, 0.0), [0.5, 0.0, 0.375], rtol=1e-14, atol=1e-15)
    x = 1e-3  # I1'' = 3x / 8 + ..., by forward over reverse
    assert fwdad.hessian(lambda v: sc.i1(v[0]))(np.array([x]))[0, 0] == \
        pytest.approx(3 * x / 8 + 5 * x**3 / 96, rel=1e-12)


# ---- xlogy and xlog1py at x = 0: x / z with z replaced by 1 wherever x is 0 -------------------
def _xlogy(v):
    return sc.xlogy(v[0], v[1])


def _xlog1py(v):
    return sc.xlog1py(v[0], v[1])


@pytest.mark.parametrize("f, log_of", [(_xlogy, lambda z: z), (_xlog1py, lambda z: 1.0 + z)],
                         ids=["xlogy", "xlog1py"])
def test_hessian_at_x_zero_is_symmetric_and_exact(f, log_of):
    """x log(w(z)) at x = 0: d2/dx dz = w'(z) / w(z) = 1 / w(z); the other two are 0. The
    mixed derivative came out 0 one way round."""
    v = np.array([0.0, 2.0])
    want = np.array([[0.0, 1.0 / log_of(2.0)], [1.0 / log_of(2.0), 0.0]])
    np.testing.assert_allclose(fwdad.hessian(f)(v), want, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(fwdad.jacfwd(fwdad.jacfwd(f))(v), want, rtol=1e-14,
                               atol=1e-15)
    np.testing.assert_allclose(fwdad.hvp(f, (v,), (np.array([1.0, 0.0]),))[0], want[0],
                               rtol=1e-14, atol=1e-15)
