"""The derivatives of i0e and i1e of every order (fwdad/rules/scaled_bessel.py): the
trapezoidal sum and Hankel's expansion against each other, each order against
differences of the one below, the values at 0 from the Taylor series, and second and
third derivatives far from 0 in every mode (the formulas i1e - i0e cancelled there:
fuzzer seed 99,985,473, tests/test_third_order.py)."""
import numpy as np
import pytest

import fwdad

sc = pytest.importorskip("scipy.special")
from fwdad.rules import scaled_bessel  # noqa: E402  (imports SciPy)
from fwdad.rules.scaled_bessel import ive_derivative  # noqa: E402

ORDERS = [(n, v) for n in (0, 1, 2, 3, 4, 5, 8, 12) for v in (0, 1)]


@pytest.mark.parametrize("n, v", ORDERS)
def test_the_two_methods_agree_past_where_one_hands_over(n, v):
    """Two independent computations of the same derivative, at and past 50."""
    x = np.array([50.0, 75.0, 1000.0, 4000.0, 20000.0])
    np.testing.assert_allclose(scaled_bessel._trapezoid(n, v, x),
                               scaled_bessel._hankel(n, v, x), rtol=1e-14, atol=0)


def test_the_first_orders_are_scipys_where_nothing_cancels():
    x = np.array([0.3, -2.0, 7.0])
    np.testing.assert_allclose(ive_derivative(0, 0, x), sc.i0e(x), rtol=1e-15)
    np.testing.assert_allclose(ive_derivative(0, 1, x), sc.i1e(x), rtol=1e-15)
    np.testing.assert_allclose(ive_derivative(1, 0, x), sc.i1e(x) - np.sign(x) * sc.i0e(x),
                               rtol=1e-13)
    np.testing.assert_allclose(ive_derivative(1, 1, x), sc.i0e(x) - sc.i1e(x) / x
                               - np.sign(x) * sc.i1e(x), rtol=1e-13)


@pytest.mark.parametrize("n, v", [(n, v) for n, v in ORDERS if n > 0])
@pytest.mark.parametrize("x", [-7.5, 0.8, 49.0, 50.0, 999.0, 19044.0, 3e6])
def test_each_order_is_the_derivative_of_the_one_below(n, v, x):
    h = abs(x) * 1e-5 + 1e-4
    by_differences = (ive_derivative(n - 1, v, x + h) - ive_derivative(n - 1, v, x - h)) / (2 * h)
    assert ive_derivative(n, v, x) == pytest.approx(by_differences, rel=1e-6)


def test_values_at_zero_are_the_taylor_series_or_zero_at_the_kink():
    """exp(-x) I0(x) = 1 - x + 3x^2/4 - ..., exp(-x) I1(x) = x/2 - x^2/2 + 5x^3/16 - ...
    for x > 0; a derivative whose two sides differ in sign is 0 at x = 0, as |x|'s is."""
    assert [float(ive_derivative(n, 0, 0.0)) for n in range(3)] == \
        pytest.approx([1.0, 0.0, 1.5], abs=1e-15)
    assert [float(ive_derivative(n, 1, 0.0)) for n in range(4)] == \
        pytest.approx([0.0, 0.5, 0.0, 15.0 / 8.0], abs=1e-14)


def test_arrays_keep_their_shape_and_scalars_stay_scalars():
    x = np.array([[0.0, -1.3, 2.5e3], [2.2, 0.7, -4e4]])
    assert ive_derivative(2, 1, x).shape == (2, 3)
    assert np.ndim(ive_derivative(2, 1, 0.5)) == 0


def test_nan_stays_nan_and_the_limits_at_infinity_are_zero():
    out = ive_derivative(2, 0, np.array([np.nan, 3.0, np.inf, -np.inf]))
    assert np.isnan(out[0]) and out[1] > 0 and out[2] == out[3] == 0.0


# ---- far from 0, in every mode ------------------------------------------------------------
def _far_out(v):
    """i0e at v0^2 = 19044 and i1e at -3 v1 = 180."""
    return sc.i0e(v[0] * v[0]) + sc.i1e(-3.0 * v[1])


V = np.array([138.0, -60.0])
T = np.array([0.6, -0.8])


def _gradient_differences(v, h=1e-3):
    """Columns of the Hessian: central differences of the reverse-mode gradient."""
    grad = fwdad.grad(_far_out)
    return np.stack([(grad(v + h * e) - grad(v - h * e)) / (2 * h) for e in np.eye(2)], 1)


def test_second_derivatives_far_out_match_differences_in_every_mode():
    want = _gradient_differences(V)
    np.testing.assert_allclose(fwdad.hessian(_far_out)(V), want, rtol=1e-8, atol=0)
    np.testing.assert_allclose(fwdad.hvp(_far_out, (V,), (T,))[0], want @ T, rtol=1e-8)
    along_t = fwdad.jacfwd(lambda v: fwdad.jvp(_far_out, (v,), (T,))[1])(V)
    np.testing.assert_allclose(along_t, want @ T, rtol=1e-8)


def test_third_derivative_far_out_matches_differences_of_the_hessian():
    """The Hessian of the derivative along T: forward over reverse over forward."""
    hessian = fwdad.hessian(_far_out)
    h = 1e-3
    want = sum(t * (hessian(V + h * e) - hessian(V - h * e)) / (2 * h)
               for t, e in zip(T, np.eye(2)))
    along_t = fwdad.hessian(lambda v: fwdad.jvp(_far_out, (v,), (T,))[1])(V)
    np.testing.assert_allclose(along_t, want, rtol=1e-6, atol=0)
