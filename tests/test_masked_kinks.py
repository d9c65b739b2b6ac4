"""An element that nothing reads passes nothing back, in both modes (docs/errors-and-
debugging.md, "Kinks").

np.where(x > 0, np.log(x), 0.0) at 0: log's derivative there is infinite, but np.where
drops that element. Forward mode computes its tangent (inf, or NaN for 0 * inf) and the
mask drops it: 0. Reverse mode multiplies the cotangent the mask leaves there, 0, by the
same infinite partial: it must give 0 too, not 0 * inf = NaN (rules/ieee.unread_zero).
Each row is masked by np.where, np.nan_to_num or an index, through a rule of each kind
(derivative-table ufuncs, multiply, divide, powers, float_power, NumPy scalars), or by
np.maximum, np.fmax, np.minimum and np.clip, whose forward rules select the tangent as
np.where does. The reference is independent of fwdad: one-sided differences on the
side where the masked element is not taken, the closed form elsewhere.
"""
import math

import numpy as np
import pytest

import fwdad

X = np.array([0.0, 1.0, 2.0])  # (0: the masked kink; 1, 2: ordinary points)
HALF_ROOT = [0.0, 0.5, 0.5 / math.sqrt(2.0)]
INVERSE = [0.0, 1.0, 0.5]


def _where_positive(fn):
    def masked(x):
        return np.where(x > 0, fn(x), 0.0)
    return masked


# (name, g, x, gradient of sum(g) at x): g's masked elements carry an infinite or NaN
# partial that nothing reads
MASKED = [
    ("where log", _where_positive(np.log), X, INVERSE),
    ("where log2", _where_positive(np.log2), X, [0.0, 1 / math.log(2), 0.5 / math.log(2)]),
    ("where log1p", _where_positive(lambda x: np.log1p(x - 1.0)), X, INVERSE),
    ("where sqrt", _where_positive(np.sqrt), X, HALF_ROOT),
    ("where x ** 0.5", _where_positive(lambda x: x ** 0.5), X, HALF_ROOT),
    ("where x ** -1", _where_positive(lambda x: x ** -1.0), X, [0.0, -1.0, -0.25]),
    ("where 1 / x", _where_positive(lambda x: 1.0 / x), X, [0.0, -1.0, -0.25]),
    ("where float_power", _where_positive(lambda x: np.float_power(x, 0.5)), X, HALF_ROOT),
    ("where 2 ** (1 / x)", _where_positive(lambda x: 2.0 ** (1.0 / x)), X,
     [0.0, -2.0 * math.log(2.0), -math.sqrt(2.0) * math.log(2.0) / 4.0]),
    ("where (x - 1) * (1 / x)", _where_positive(lambda x: (x - 1.0) * (1.0 / x)), X,
     [0.0, 1.0, 0.25]),  # (at 1 the cotangent of 1 / x is 0 but moves with x)
    ("where x * log(x)", _where_positive(lambda x: x * np.log(x)), X,
     [0.0, 1.0, 1.0 + math.log(2.0)]),
    ("where log(x) * log(x)", _where_positive(lambda x: np.log(x) * np.log(x)), X,
     [0.0, 0.0, math.log(2.0)]),
    ("where arctan2(x, x)", _where_positive(lambda x: np.arctan2(x, x)), X, [0.0] * 3),
    ("where arcsin, outside its domain", lambda x: np.where(x < 1, np.arcsin(x), 0.0),
     np.array([0.0, 2.0, 3.0]), [1.0, 0.0, 0.0]),
    ("maximum(log(x), -1)", lambda x: np.maximum(np.log(x), -1.0), X, INVERSE),
    ("fmax(log(x), -1)", lambda x: np.fmax(np.log(x), -1.0), X, INVERSE),
    ("minimum(x ** -0.5, 2)", lambda x: np.minimum(x ** -0.5, 2.0), X,
     [0.0, -0.5, -0.5 * 2.0 ** -1.5]),
    ("clip(log(x), -5, 5)", lambda x: np.clip(np.log(x), -5.0, 5.0), X, INVERSE),
    ("nan_to_num nan * x", lambda x: np.nan_to_num(np.nan * x), X, [0.0] * 3),
    ("nan_to_num x * nan", lambda x: np.nan_to_num(x * np.nan), X, [0.0] * 3),
    ("nan_to_num sqrt", lambda x: np.nan_to_num(np.sqrt(x)), np.array([-1.0, 1.0, 4.0]),
     [0.0, 0.5, 0.25]),
    ("index of log", lambda x: np.log(x)[1], X, [0.0, 1.0, 0.0]),
    ("index of sqrt", lambda x: np.sqrt(x)[1], X, [0.0, 0.5, 0.0]),
    ("slice of log", lambda x: np.log(x)[1:], X, INVERSE),
    ("scalar where log", lambda x: np.where(x[0] > 0, np.log(x[0]), 0.0), X[:1], [0.0]),
    ("scalar where x ** -1", lambda x: np.where(x[0] > 0, x[0] ** -1.0, 0.0), X[:1],
     [0.0]),
    ("scalar where math.sqrt", lambda x: np.where(x[0] > 0, math.sqrt(abs(x[0])), 0.0),
     X[:1], [0.0]),
]
IDS = [row[0] for row in MASKED]


def _total(g):
    def total(x):
        return np.sum(g(x))
    return total


def _basis(x, i):
    e = np.zeros_like(x)
    e[i] = 1.0
    return e


@pytest.mark.parametrize("name, g, x, expected", MASKED, ids=IDS)
def test_the_expected_gradient_is_a_one_sided_difference(name, g, x, expected):
    """The reference: the difference from the left, where the masked branch (a constant)
    is taken at each masked element, and the ordinary derivative elsewhere; from the
    right where the left is not a number (np.maximum(np.log(x), -1) left of 0)."""
    f, h = _total(g), 1e-7
    with np.errstate(all="ignore"):
        for i, want in enumerate(expected):
            step = h * _basis(x, i)
            slope = (f(x) - f(x - step)) / h
            if np.isnan(slope):
                slope = (f(x + step) - f(x)) / h
            assert slope == pytest.approx(want, rel=1e-5, abs=1e-5), i


@pytest.mark.parametrize("name, g, x, expected", MASKED, ids=IDS)
def test_every_mode_gives_the_masked_gradient(name, g, x, expected):
    f = _total(g)
    with np.errstate(all="ignore"):
        results = {"jvp": [fwdad.jvp(f, (x,), (_basis(x, i),))[1] for i in range(x.size)],
                   "grad": fwdad.grad(f)(x), "jacfwd": fwdad.jacfwd(f)(x),
                   "jacrev": fwdad.jacrev(f)(x)}
    for mode, got in results.items():
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=mode)


@pytest.mark.parametrize("name, g, x, expected", MASKED, ids=IDS)
def test_jacobians_and_dot_products_agree(name, g, x, expected):
    """g itself (a vector where it is one): jacfwd and jacrev give the same Jacobian, and
    <ct, jvp(t)> = <vjp(ct), t> at random t and ct, all finite."""
    rng = np.random.default_rng(100_172_000)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(fwdad.jacrev(g)(x), fwdad.jacfwd(g)(x), rtol=1e-12,
                                   atol=1e-12)
        for _ in range(3):
            t = rng.standard_normal(x.shape)
            out, dout = fwdad.jvp(g, (x,), (t,))
            ct = rng.standard_normal(np.shape(out))
            (back,) = fwdad.vjp(g, x)[1](ct)
            forward, reverse = np.sum(ct * dout), np.sum(back * t)
            assert np.isfinite(forward) and np.isfinite(reverse)
            assert forward == pytest.approx(reverse, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name, g, x, expected", MASKED, ids=IDS)
def test_second_order_is_finite_and_agrees(name, g, x, expected):
    """The Hessian of sum(g) by forward over reverse and by forward over forward."""
    f = _total(g)
    with np.errstate(all="ignore"):
        over_reverse = fwdad.hessian(f)(x)
        over_forward = fwdad.jacfwd(fwdad.jacfwd(f))(x)
    assert np.all(np.isfinite(over_reverse))
    np.testing.assert_allclose(over_reverse, over_forward, rtol=1e-12, atol=1e-12)
