"""The derivatives of dawsn, erfcx, exprel, spence, cbrt, softplus, lambertw, owens_t,
boxcox, boxcox1p, huber, pseudo_huber, agm and diric (fwdad/rules/scipy_special.py,
scipy_composed.py and fwdad/reverse/rules_scipy_special.py, written from DLMF and SciPy's
definitions), against
mpmath's numerical derivative of each function written from its definition, at points
Hypothesis draws: forward mode (jvp) and reverse mode (grad) alike, and again at second
order where a formula was written to avoid cancellation (exprel near 0, spence near 1,
boxcox near lambda = 0)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fwdad

sc = pytest.importorskip("scipy.special")
mp = pytest.importorskip("mpmath")
mp.mp.dps = 30
RANDOM = settings(max_examples=25, deadline=None, database=None)


def _floats(low, high):
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def _boxcox(x, lm):
    return mp.log(x) if lm == 0 else mp.expm1(lm * mp.log(x)) / lm


def _owens_t(h, a):
    return mp.quad(lambda t: mp.exp(-h * h * (1 + t * t) / 2) / (1 + t * t), [0, a]) \
        / (2 * mp.pi)


def _huber(d, r):
    return r * r / 2 if abs(r) <= d else d * (abs(r) - d / 2)


# (scipy function, its definition in mpmath, the domain of x)
UNARY = [
    (sc.dawsn, lambda x: mp.sqrt(mp.pi) / 2 * mp.exp(-x * x) * mp.erfi(x), _floats(-30, 30)),
    (sc.erfcx, lambda x: mp.exp(x * x) * mp.erfc(x), _floats(-5, 50)),
    (sc.exprel, lambda x: mp.quad(lambda t: mp.exp(x * t), [0, 1]), _floats(-40, 40)),
    (sc.spence, lambda z: mp.polylog(2, 1 - z), _floats(0.01, 20)),
    (sc.cbrt, mp.cbrt, _floats(0.05, 100)),
    (sc.softplus, lambda x: mp.log1p(mp.exp(x)), _floats(-40, 40)),
    (lambda x: sc.lambertw(x).real, lambda x: mp.re(mp.lambertw(x)), _floats(-0.36, 50)),
]
BINARY = [  # (function, definition, domain of the first and second arguments)
    (sc.owens_t, _owens_t, _floats(-4, 4), _floats(-4, 4)),
    (sc.boxcox, _boxcox, _floats(0.05, 10), _floats(-3, 3)),
    (sc.boxcox1p, lambda x, lm: _boxcox(1 + x, lm), _floats(-0.9, 10), _floats(-3, 3)),
    (sc.pseudo_huber, lambda d, r: d * d * (mp.sqrt(1 + (r / d) ** 2) - 1),
     _floats(0.01, 5), _floats(-10, 10)),
]


def _close(got, want, rtol=1e-9, atol=1e-12):
    assert abs(got - float(want)) <= atol + rtol * abs(float(want)), (got, float(want))


@pytest.mark.parametrize("fn, definition, domain", UNARY,
                         ids=lambda v: getattr(v, "__name__", ""))
@RANDOM
@given(data=st.data())
def test_unary_derivative_is_the_definitions(fn, definition, domain, data):
    x = data.draw(domain, label="x")
    want = mp.diff(definition, mp.mpf(x))
    _close(fwdad.jvp(fn, (x,), (1.0,))[1], want)
    _close(fwdad.grad(lambda v: fn(v))(x), want)


@pytest.mark.parametrize("fn, definition, first, second", BINARY,
                         ids=lambda v: getattr(v, "__name__", ""))
@RANDOM
@given(data=st.data())
def test_binary_partial_derivatives_are_the_definitions(fn, definition, first, second,
                                                        data):
    a, b = data.draw(first, label="a"), data.draw(second, label="b")
    want_a = mp.diff(lambda u: definition(u, mp.mpf(b)), mp.mpf(a))
    want_b = mp.diff(lambda u: definition(mp.mpf(a), u), mp.mpf(b))
    _close(fwdad.jvp(fn, (a, b), (1.0, 0.0))[1], want_a)
    _close(fwdad.jvp(fn, (a, b), (0.0, 1.0))[1], want_b)
    got_a, got_b = fwdad.grad(lambda u, v: fn(u, v), (0, 1))(a, b)
    _close(got_a, want_a)
    _close(got_b, want_b)


@pytest.mark.parametrize("d, r", [(1.0, 0.3), (1.0, -2.5), (0.5, 0.5 - 1e-9), (2.0, 7.0)])
def test_huber_partial_derivatives_are_the_definitions(d, r):
    """Piecewise: one point on each side of |r| = d (mpmath differentiates each piece)."""
    want_d = mp.diff(lambda u: _huber(u, mp.mpf(r)), mp.mpf(d), h=mp.mpf("1e-15"))
    want_r = mp.diff(lambda u: _huber(mp.mpf(d), u), mp.mpf(r), h=mp.mpf("1e-15"))
    _close(fwdad.jvp(sc.huber, (d, r), (1.0, 0.0))[1], want_d, atol=1e-9)
    _close(fwdad.jvp(sc.huber, (d, r), (0.0, 1.0))[1], want_r, atol=1e-9)
    got = fwdad.grad(lambda u, v: sc.huber(u, v), (0, 1))(d, r)
    _close(got[0], want_d, atol=1e-9)
    _close(got[1], want_r, atol=1e-9)


def _pseudo_huber(d, r):
    return d * mp.sqrt(d * d + r * r) - d * d  # d^2 (sqrt(1 + (r / d)^2) - 1), at d = 0 too


@pytest.mark.parametrize("fn, definition", [(sc.huber, _huber),
                                            (sc.pseudo_huber, _pseudo_huber)],
                         ids=["huber", "pseudo_huber"])
@pytest.mark.parametrize("r", [-2.5, 0.0, 1.5])
def test_huber_like_derivatives_at_delta_zero_are_one_sided(fn, definition, r):
    """SciPy gives 0 at d = 0 for every r and inf for d < 0: the partial in r is 0, and
    the ones in d (first and second) are mpmath's from the right. They were NaN for
    pseudo_huber."""
    def inner(u, v):
        return fwdad.jvp(fn, (u, v), (1.0, 0.0))[1]
    for order, got in [(1, inner(0.0, r)), (2, fwdad.jvp(inner, (0.0, r), (1.0, 0.0))[1])]:
        want = mp.diff(lambda u: definition(u, mp.mpf(r)), mp.mpf(0), order, direction=1)
        _close(got, want, atol=1e-7)
    assert fwdad.jvp(fn, (0.0, r), (0.0, 1.0))[1] == 0.0
    assert tuple(fwdad.grad(lambda u, v: fn(u, v), (0, 1))(0.0, r)) == (abs(r), 0.0)
    hessian = fwdad.hessian(lambda v: fn(v[0], v[1]))(np.array([0.0, r]))
    assert np.allclose(hessian, fwdad.jacfwd(fwdad.grad(lambda v: fn(v[0], v[1])))(
        np.array([0.0, r])))


@pytest.mark.parametrize("fn", [sc.huber, sc.pseudo_huber])
def test_huber_like_derivatives_are_zero_where_the_function_is_the_constant_inf(fn):
    """d < 0: SciPy's value is inf for every (d, r), a constant, whose derivatives are 0
    (those of its definition np.where(d < 0, np.inf, ...)); they were NaN."""
    d, r = np.array([-1.0, -0.5, -2.0]), np.array([2.0, 0.0, -0.3])
    assert np.all(np.isinf(fn(d, r)))
    for tangent in [(np.ones(3), np.zeros(3)), (np.zeros(3), np.ones(3))]:
        assert np.array_equal(fwdad.jvp(fn, (d, r), tangent)[1], np.zeros(3))
    for cotangent in fwdad.vjp(fn, d, r)[1](np.ones(3)):
        assert np.array_equal(cotangent, np.zeros(3))
    assert np.array_equal(fwdad.hessian(lambda v: fn(v[0], v[1]))(np.array([-1.0, 2.0])),
                          np.zeros((2, 2)))


def _agm_partial(a, b):
    """d agm(a, b) / da in closed form (fwdad/rules/scipy_composed.py), from SciPy's
    ellipk and elliprd."""
    s = a + b
    k, rd = sc.ellipk(((a - b) / s) ** 2), sc.elliprd(0.0, 4.0 * a * b / s ** 2, 1.0)
    return np.pi / (4.0 * k) * (1.0 - (a - b) * (k - rd / 3.0) / (2.0 * a * k))


@pytest.mark.parametrize("a, b", [(1.0, 2.0), (0.3, 7.0), (5.0, 5.0), (1.0, 1.0 + 1e-9),
                                  (1e-5, 1.0), (3.0, 1e-7), (1e10, 1.0)])
def test_agm_derivatives_are_the_closed_form_and_mpmaths(a, b):
    """First partials against the closed form and mpmath's; the second against
    mpmath's, by jvp of jvp and by hessian (forward over reverse)."""
    want_a, want_b = mp.diff(lambda u: mp.agm(u, b), a), mp.diff(lambda u: mp.agm(a, u), b)
    _close(_agm_partial(a, b), want_a, rtol=1e-8)  # (ellipk loses digits near m = 1)
    _close(fwdad.jvp(sc.agm, (a, b), (1.0, 0.0))[1], want_a, rtol=1e-14)
    got_a, got_b = fwdad.grad(lambda u, v: sc.agm(u, v), (0, 1))(a, b)
    _close(got_a, want_a, rtol=1e-14)
    _close(got_b, want_b, rtol=1e-14)
    want_aa = mp.diff(lambda u: mp.agm(u, b), a, 2)
    _close(_second(lambda u: sc.agm(u, b), a)[0], want_aa, rtol=1e-12)
    hessian = fwdad.hessian(lambda v: sc.agm(v[0], v[1]))(np.array([a, b]))
    _close(hessian[0, 0], want_aa, rtol=1e-12)
    _close(hessian[0, 1], mp.diff(lambda u, v: mp.agm(u, v), (a, b), (1, 1)), rtol=1e-12)


def test_agm_of_negative_values_and_of_mixed_signs_is_scipys():
    """agm(-a, -b) = -agm(a, b): the same partials; NaN where the signs differ."""
    assert fwdad.grad(lambda u, v: sc.agm(u, v), (0, 1))(-1.0, -2.0) == \
        fwdad.grad(lambda u, v: sc.agm(u, v), (0, 1))(1.0, 2.0)
    value, tangent = fwdad.jvp(sc.agm, (-1.0, 2.0), (1.0, 1.0))
    assert np.isnan(value) and np.isnan(sc.agm(-1.0, 2.0))


@pytest.mark.parametrize("a", [1.0, 0.3, -2.0])
def test_agm_at_a_constant_zero_has_the_partial_zero(a):
    """agm(a, 0) = 0 for every a: the partial in a is 0 (mpmath's), in both modes and
    at second order; it was NaN (the rule differentiated sqrt(|a b|) at 0)."""
    assert complex(mp.diff(lambda u: mp.agm(u, 0), a)) == 0.0
    at_zero = _agm_of_a_and_zero
    assert fwdad.jvp(at_zero, (a,), (1.0,)) == (0.0, 0.0)
    assert fwdad.grad(at_zero)(a) == 0.0
    assert fwdad.hessian(at_zero)(a) == 0.0
    assert fwdad.jvp(sc.agm, (a, 0.0), (1.0, 0.0))[1] == 0.0  # (b moves not: a constant)
    rows = fwdad.jacrev(_agm_of_a_row)(np.array([a, 2.0, 1.5]))
    np.testing.assert_array_equal(np.diag(rows)[[0, 1]], [0.0, 0.0])
    assert np.diag(rows)[2] == pytest.approx(float(mp.diff(lambda u: mp.agm(u, 2.0), 1.5)))


def _agm_of_a_and_zero(a):
    return sc.agm(a, 0.0)


def _agm_of_a_row(v):
    return sc.agm(v, np.array([0.0, 0.0, 2.0]))


def _agm_of_two(a, b):
    return sc.agm(a, b)


@pytest.mark.parametrize("run", [
    lambda: fwdad.jvp(_agm_of_two, (1.0, 0.0), (0.0, 1.0)),
    lambda: fwdad.jvp(_agm_of_two, (0.0, -2.0), (1.0, 0.0)),
    lambda: fwdad.grad(_agm_of_two, (0, 1))(1.0, 0.0),
    lambda: fwdad.grad(_agm_of_two)(0.0, 3.0),
    lambda: fwdad.jacfwd(_agm_of_two, argnums=1)(np.ones(2), np.array([0.5, 0.0])),
    lambda: fwdad.jacrev(_agm_of_two, argnums=1)(np.ones(2), np.array([0.5, 0.0])),
    lambda: fwdad.hessian(lambda v: _agm_of_two(v[0], v[1]))(np.array([1.0, 0.0]))],
    ids=["jvp b", "jvp a", "grad", "grad a", "jacfwd", "jacrev", "hessian"])
def test_agm_refuses_a_derivative_along_a_zero_argument(run):
    """At b = 0 the slope in b is infinite from one side (mpmath's grows like
    1 / (b log(b)^2)) and there is none from the other (NaN): a clear refusal, naming
    the call and the user's line, where both modes gave NaN."""
    assert mp.diff(lambda u: mp.agm(1, u), mp.mpf("1e-20")) > 1e15
    with pytest.raises(fwdad.NonDifferentiableError,
                       match=r"scipy\.special\.agm\(a, b\) in _agm_of_two at .*"
                             r"test_scipy_special_formulas\.py:\d+: . is 0.*constant"):
        run()


def _diric(n):
    return lambda t: mp.sin(n * t / 2) / (n * mp.sin(t / 2))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 50])
@pytest.mark.parametrize("x", [1e-9, 0.3, 2.0, math.pi, 2 * math.pi + 1e-7, -5.0,
                               4 * math.pi - 1e-3])
def test_diric_derivatives_are_mpmaths(n, x):
    """Near the peaks x = 2 pi k too, where SciPy's formula is 0 / 0."""
    want, want2 = (mp.diff(_diric(n), mp.mpf(x), order) for order in (1, 2))
    _close(fwdad.jvp(lambda t: sc.diric(t, n), (x,), (1.0,))[1], want, atol=1e-9)
    _close(fwdad.grad(lambda t: sc.diric(t, n))(x), want, atol=1e-9)
    for got in _second(lambda t: sc.diric(t, n), x):
        _close(got, want2, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("n", [1, 4, 7])
def test_diric_at_its_peaks_has_the_limits(n):
    """At x = 2 pi k: the value +-1 (SciPy's), the slope 0, the curvature
    -(n^2 - 1) / 12 times the value."""
    for x in [0.0, 2 * math.pi, -2 * math.pi]:
        value = float(sc.diric(x, n))
        assert fwdad.jvp(lambda t: sc.diric(t, n), (x,), (1.0,)) == (value, 0.0)
        for got in _second(lambda t: sc.diric(t, n), x):
            assert got == pytest.approx(-(n * n - 1) / 12.0 * value, abs=1e-12)


def test_diric_of_a_differentiated_n_is_refused_in_both_modes():
    refused = r"diric\(x, n\) in .* with respect to n"
    with pytest.raises(fwdad.NonDifferentiableError, match=refused):
        fwdad.jvp(lambda x, n: sc.diric(x, n), (0.3, 3.0), (1.0, 1.0))
    with pytest.raises(fwdad.NonDifferentiableError, match=refused):
        fwdad.grad(lambda x, n: sc.diric(x, n), (0, 1))(0.3, 3.0)


def _second(fn, x):
    """f''(x) by jvp of jvp, and by hessian (reverse rules on Duals)."""
    inner = lambda v: fwdad.jvp(fn, (v,), (1.0,))[1]  # noqa: E731
    return (fwdad.jvp(inner, (x,), (1.0,))[1],
            fwdad.hessian(lambda v: fn(v[0]))(np.array([x]))[0, 0])


@pytest.mark.parametrize("fn, definition, x", [
    (sc.exprel, lambda x: mp.quad(lambda t: mp.exp(x * t), [0, 1]), 0.0),  # 1/3
    (sc.exprel, lambda x: mp.quad(lambda t: mp.exp(x * t), [0, 1]), 1e-9),
    (sc.exprel, lambda x: mp.quad(lambda t: mp.exp(x * t), [0, 1]), -7.5),
    (sc.spence, lambda z: mp.polylog(2, 1 - z), 1.0),  # 1/2
    (sc.spence, lambda z: mp.polylog(2, 1 - z), 1.0 + 1e-9),
    (lambda lm: sc.boxcox(1.7, lm), lambda lm: _boxcox(mp.mpf(1.7), lm), 0.0),
    (lambda lm: sc.boxcox(1.7, lm), lambda lm: _boxcox(mp.mpf(1.7), lm), 1e-10),
    (lambda x: sc.lambertw(x).real, lambda x: mp.re(mp.lambertw(x)), 0.8),
    (sc.erfcx, lambda x: mp.exp(x * x) * mp.erfc(x), 1.3),
])
def test_second_derivatives_where_the_formula_avoids_cancellation(fn, definition, x):
    want = mp.diff(definition, mp.mpf(x), 2)
    for got in _second(fn, x):
        _close(got, want, rtol=1e-8, atol=1e-12)


def test_lambertw_of_complex_values_on_other_branches_is_holomorphic():
    """W_k'(z) = exp(-W) / (1 + W) on every branch: forward mode's complex tangent and
    reverse mode's cotangent (ct W', complex_ready) against mpmath's derivative."""
    for z, k in [(0.3 + 0.4j, 0), (-2.0 + 0.5j, 0), (0.5 + 0.4j, 1), (1.2 - 0.3j, -1)]:
        want = complex(mp.diff(lambda t: mp.lambertw(t, k), mp.mpc(z)))
        got = fwdad.jvp(lambda v: sc.lambertw(v, k), (z,), (1.0 + 0j,))[1]
        assert abs(got - want) <= 1e-10 * abs(want)
        _, pullback = fwdad.vjp(lambda v: sc.lambertw(v, k), z)
        assert abs(pullback(1.0 + 0j)[0] - want) <= 1e-10 * abs(want)


def test_owens_t_at_h_zero_and_large_a():
    """T(0, a) = arctan(a) / (2 pi): d/da = 1 / (2 pi (1 + a^2)); d/dh = 0 at h = 0."""
    a = 30.0
    assert fwdad.jvp(sc.owens_t, (0.0, a), (0.0, 1.0))[1] == pytest.approx(
        1.0 / (2.0 * math.pi * (1.0 + a * a)), rel=1e-13)
    assert fwdad.jvp(sc.owens_t, (0.0, a), (1.0, 0.0))[1] == 0.0


def test_softplus_with_keywords_is_refused_in_both_modes():
    def f(x):
        return sc.softplus(x, dtype=np.float64)
    with pytest.raises(fwdad.FwdadError, match=r"softplus in \S*f at .*formulas\.py:\d+"):
        fwdad.jvp(f, (0.3,), (1.0,))
    with pytest.raises(fwdad.FwdadError, match=r"softplus in \S*f at .*formulas\.py:\d+"):
        fwdad.grad(f)(0.3)
