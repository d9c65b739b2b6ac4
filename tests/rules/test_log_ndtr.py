"""scipy.special.log_ndtr differentiated to third order, from x = -1e4 to 40, forward,
reverse and nested, against mpmath (fwdad/rules/normal_log_cdf.py computes the
derivatives without cancellation). The reference values are mpmath's
diff(log(ncdf(x)), x, n), at 60 digits and more where log(ncdf) is near 0."""
import numpy as np
import pytest

import fwdad

sc = pytest.importorskip("scipy.special")
from fwdad.rules.normal_log_cdf import POLYNOMIAL_FROM, log_ndtr_derivative  # noqa: E402

# x: (first, second, third derivative of log_ndtr at x)
MPMATH = [
    (-10000.0, (10000.000099999998, -0.9999999900000006, 1.99999976000003e-12)),
    (-3000.0, (3000.0003333332592593, -0.99999988888896296289, 7.4073975308779149309e-11)),
    (-40.0, (40.024968847207263723, -0.99937733162140861123, 0.000031017440396486248322)),
    (-10.0, (10.098093233962511963, -0.99055462217434373884, 0.0017864003921165068922)),
    (-3.0, (3.2830986549304365069, -0.92944081321473188314, 0.031470672830842487947)),
    (-1.0, (1.5251352761609812091, -0.80090233442965120845, 0.11693119540604883154)),
    (-0.3, (0.9981659688584833199, -0.69688551072964970789, 0.1839831799244213231)),
    (0.0, (0.79788456080286535588, -0.63661977236758134308, 0.21801361414499016069)),
    (0.5, (0.50916043383703348583, -0.51382456430363289677, 0.27099012446870783327)),
    (1.0, (0.28759997093917836123, -0.37031371422339459914, 0.29571817018227121246)),
    (2.0, (0.055247862678989959102, -0.11354805168857644979, 0.18439481503247759176)),
    (5.0, (1.4867199409049057124e-6, -7.4336019148607112465e-6, 0.000035681311736767049665)),
    (10.0, (7.6945986267064193463e-23, -7.6945986267064193463e-22, 7.6176526404393551529e-21)),
    (20.0, (5.5209483621597631896e-88, -1.1041896724319526379e-86, 2.2028583965017455126e-85)),
    (37.0, (2.1200065515246056269e-298, -7.8440242406410408194e-297, 2.9001689624856604975e-295)),
    (40.0, (0.0, 0.0, 0.0)),  # (1.5e-348, -5.9e-347, 2.3e-345: below the least double)
]
RTOL = 1e-14  # the largest error measured is 6e-16 (at x = 2, second order)
XS = np.array([x for x, _ in MPMATH])
WANT = np.array([want for _, want in MPMATH])


def _log_ndtr(x):
    return sc.log_ndtr(x)


def d(f):
    """x -> f'(x) by jvp."""
    return lambda x: fwdad.jvp(f, (x,), (1.0,))[1]


def test_the_derivatives_match_mpmath_elementwise():
    for n in (1, 2, 3):
        np.testing.assert_allclose(log_ndtr_derivative(n, XS), WANT[:, n - 1], rtol=RTOL,
                                   atol=0)
    np.testing.assert_array_equal(log_ndtr_derivative(0, XS), sc.log_ndtr(XS))


@pytest.mark.parametrize("x, want", MPMATH, ids=[str(x) for x, _ in MPMATH])
def test_forward_and_reverse_at_every_order_match_mpmath(x, want):
    """jvp nested one, two and three deep; grad, jvp of grad and the Hessian."""
    got = [d(_log_ndtr)(x), d(d(_log_ndtr))(x), d(d(d(_log_ndtr)))(x)]
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=0)
    grad = fwdad.grad(_log_ndtr)
    np.testing.assert_allclose([grad(x), d(grad)(x)], want[:2], rtol=RTOL, atol=0)
    hessian = fwdad.hessian(lambda v: np.sum(sc.log_ndtr(v)))(np.array([x, 0.0]))
    np.testing.assert_allclose(np.diag(hessian), [want[1], WANT[XS == 0.0][0, 1]],
                               rtol=RTOL, atol=0)
    assert hessian[0, 1] == hessian[1, 0] == 0.0


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("x", [-2000.0, -6.0, -0.4, 0.3, 0.7, 3.0])
def test_higher_orders_match_differences_of_the_order_below(n, x):
    h = 1e-5 * max(1.0, abs(x))
    by_differences = (log_ndtr_derivative(n - 1, x + h)
                      - log_ndtr_derivative(n - 1, x - h)) / (2 * h)
    assert log_ndtr_derivative(n, x) == pytest.approx(by_differences, rel=1e-6)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_two_methods_agree_where_they_hand_over(n):
    """The cumulants below 1/2 and the polynomial above give the same values on both
    sides of the handover (the polynomial alone is used above it)."""
    from fwdad.rules.normal_log_cdf import _cumulant, _polynomial
    x = np.linspace(POLYNOMIAL_FROM - 0.3, POLYNOMIAL_FROM + 0.3, 13)
    np.testing.assert_allclose(_cumulant(n, -x), _polynomial(n, x), rtol=1e-13)


def test_shapes_limits_and_nan():
    x = np.array([[-np.inf, np.inf, np.nan], [1.0, 0.2, -7.0]])
    out = log_ndtr_derivative(2, x)
    assert out.shape == (2, 3)
    assert list(out[0, :2]) == [-1.0, 0.0] and np.isnan(out[0, 2])
    assert list(log_ndtr_derivative(3, np.array([-np.inf, np.inf]))) == [0.0, 0.0]
    assert np.ndim(log_ndtr_derivative(3, 0.5)) == 0
    assert log_ndtr_derivative(1, -np.inf) == np.inf
