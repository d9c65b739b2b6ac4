"""Second derivatives through iterators read more than once (`zip(it, it)`, a loop
resumed after a break, `next` then a loop): each item is read once, as in Python.
Checked against finite differences of the (first-order, reverse-mode) gradient."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close, fd_jvp


def pairs_of_one_iterator(x):
    it = iter(x)
    total = 0.0
    for a, b in zip(it, it):
        total = total + a * b
    return total


def resumed_after_break(x):
    it = iter(x)
    total = 0.0
    for a in it:
        total = total + a * a
        if a > 0.4:
            break
    for b in it:
        total = total + b * total
    return total


def pairs_of_a_map(x):
    m = map(np.sin, x)
    return sum([a * b for a, b in zip(m, m)])


def rest_of_an_enumerate(x):
    e = enumerate(x)
    next(e)
    total = 0.0
    for i, v in e:
        total = total + i * v * v
    return total


CASES = [pairs_of_one_iterator, resumed_after_break, pairs_of_a_map, rest_of_an_enumerate]
X = np.array([0.3, 0.5, 0.7, 1.1])


def _fd_hessian(f, x):
    gradient = fwdad.grad(f)
    return np.stack([fd_jvp(gradient, (x,), (e,)) for e in np.eye(x.size)], axis=-1)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_hessian_matches_finite_differences_of_the_gradient(f):
    want = _fd_hessian(f, X.copy())
    assert np.abs(want).max() > 0.5  # (every case has second derivatives to get wrong)
    assert_close(fwdad.hessian(f)(X.copy()), want, rtol=1e-6, atol=1e-6)
    assert_close(fwdad.jacfwd(fwdad.jacfwd(f))(X.copy()), want, rtol=1e-6, atol=1e-6)


def directional(y):
    return fwdad.jvp(pairs_of_one_iterator, (y,), (np.array([1.0, 0.0, 0.0, 0.0]),))[1]


def test_jvp_of_jvp_through_one_iterator_read_twice():
    value, derivative = fwdad.jvp(directional, (X.copy(),), (np.ones(4),))
    assert_close(value, X[1])  # d/dx0 of x0 x1 + x2 x3
    assert_close(derivative, fd_jvp(directional, (X.copy(),), (np.ones(4),)))
