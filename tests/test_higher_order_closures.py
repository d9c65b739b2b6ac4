"""Closures made inside a function see their own captured values at every order: a rule
built for one closure is never reused with another closure's captured arrays (issue 14:
hvp of a closure made inside a function gave the first call's answer on the second)."""
import numpy as np
import pytest

import fwdad
from tests.util import central_hessian


def cubic_weighted(points):
    """c -> sum(points * c^3): gradient 3 points c^2, Hessian diag(6 points c)."""
    return lambda c: np.sum(points * c * c * c)


def gradient(points, c):
    return 3.0 * points * c * c


def hessian(points, c):
    return np.diag(6.0 * points * c)


def _direction(c):
    return np.linspace(1.0, -1.0, len(c))


TRANSFORMS = {  # name -> (what fwdad computes, its closed form)
    "grad": (lambda f, c: fwdad.grad(f)(c), gradient),
    "vjp": (lambda f, c: fwdad.vjp(f, c)[1](1.0)[0], gradient),
    "jvp": (lambda f, c: fwdad.jvp(f, (c,), (_direction(c),))[1],
            lambda p, c: gradient(p, c) @ _direction(c)),
    "jacfwd": (lambda f, c: fwdad.jacfwd(f)(c), gradient),
    "hessian": (lambda f, c: fwdad.hessian(f)(c), hessian),
    "hvp": (lambda f, c: fwdad.hvp(f, (c,), (_direction(c),))[0],
            lambda p, c: hessian(p, c) @ _direction(c)),
}
CAPTURED = [np.ones(3), 5.0 * np.ones(3), np.arange(1.0, 5.0), 2.0 * np.ones(3),
            np.array([2.0, -1.0])]


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_closures_see_their_own_captured_values(name):
    compute, closed_form = TRANSFORMS[name]
    for points in CAPTURED:  # one closure per call, same def, new values and shapes
        c = np.linspace(0.5, 1.5, len(points))
        np.testing.assert_allclose(compute(cubic_weighted(points), c),
                                   closed_form(points, c), rtol=1e-12)


def inner_closure_at_level_two(x, points):
    """A closure made inside the differentiated function, differentiated inside it:
    d/dy sum(points * x * y^2) at y = 1 is 2 x sum(points); d/dx is 2 sum(points)."""
    return fwdad.jvp(lambda y: np.sum(points * x * y * y), (1.0,), (1.0,))[1]


@pytest.mark.parametrize("points", CAPTURED, ids=str)
def test_level_two_closures_see_their_own_captured_values(points):
    _, tangent = fwdad.jvp(inner_closure_at_level_two, (0.7, points),
                             (1.0, np.zeros_like(points)))
    assert tangent == pytest.approx(2.0 * np.sum(points), rel=1e-12)


# ---- a closure that a rule calls on plain values (sorted's key, max's key) ---------------
def sorted_by_a_closure(x):
    c = x[2]
    ys = sorted([x[0], x[1] * 2.0, x[2] ** 2], key=lambda v: (v - c) ** 2)
    return ys[0] * ys[1] ** 2 + ys[2] ** 3


def max_by_a_closure(x):
    return max([x[0], x[1] * 2.0, x[2] ** 2], key=lambda v: v * v) ** 3


def sorted_list_by_a_closure(x):  # (tolist: reverse mode refuses, hessian goes forward)
    ys = sorted(x.tolist(), key=lambda v: v.real)
    return ys[0] * ys[2] ** 2


@pytest.mark.parametrize("f", [sorted_by_a_closure, max_by_a_closure,
                               sorted_list_by_a_closure], ids=lambda f: f.__name__)
def test_a_closure_as_the_key_of_sorted(f):
    """The rule calls the key on plain values (DerivedClosure.__call__); at second order
    that call is differentiated too (NestedClosure.call_rule). It raised an error that
    blamed fwdad's getattr rule."""
    x = np.array([0.3, -1.2, 0.8])
    want = central_hessian(f, x)
    np.testing.assert_allclose(fwdad.jacfwd(fwdad.jacfwd(f))(x), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fwdad.hessian(f)(x), want, rtol=1e-5, atol=1e-6)
