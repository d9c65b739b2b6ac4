"""The real or imaginary part of a complex variable, read after a write into the
variable (fwdad/reverse/complex_parts.py): the part is a view, so NumPy reads the new
values, and its derivative is that of the new values. Reverse mode passed the part's
adjoint to the complex value as it was before the write: a wrong gradient with no error
(z.real read after `z[0] = ...` gave [-0.47, -1.4, 2.2] for [-0.77, -1.07, 1.99])."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close, central_gradient

X = np.array([0.3, -0.7, 1.1])


def real_read_after_a_write(x):
    z = x * (1.0 + 0.5j)
    r = z.real
    z[0] = x[1] * x[2] + 0j
    return np.sum(r * x)


def imag_read_before_and_after(x):
    z = x * (0.5 - 2.0j)
    i = np.imag(z)
    before = np.sum(i * i)
    z[1:] = z[1:] * (1j * x[0])
    return before + np.sum(np.sin(i) * x)


def written_through_a_view(x):
    z = np.exp(1j * x) * x
    r = np.real(z)
    v = z[::2]
    v[...] = x[1] * (2.0 - 1.0j)
    return np.sum(r ** 2) + np.sum(np.imag(z) * x)


def written_twice(x):
    z = x + 0.25j * x * x
    r = z.real
    i = z.imag
    z[0] = x[2] * (1.0 + 1.0j)
    a = np.sum(r * i)
    z[2] = x[0] * x[1] * 1j
    return a + np.sum(r * x) - np.sum(i * np.cos(x))


PROGRAMS = [real_read_after_a_write, imag_read_before_and_after, written_through_a_view,
            written_twice]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient_matches_central_differences_and_jvp(f):
    want = central_gradient(f, X)
    assert_close(fwdad.grad(f)(X), want, rtol=1e-6, atol=1e-9)
    assert_close(fwdad.jacrev(f)(X), want, rtol=1e-6, atol=1e-9)
    forward = np.array([fwdad.jvp(f, (X,), (e,))[1] for e in np.eye(3)])
    assert_close(fwdad.grad(f)(X), forward, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_a_pullback_runs_twice(f):
    value, pullback = fwdad.vjp(f, X)
    first = pullback(1.0)[0]
    assert_close(pullback(1.0)[0], first, rtol=0, atol=0)
    assert_close(first, central_gradient(f, X), rtol=1e-6, atol=1e-9)
    assert value == pytest.approx(f(X))
