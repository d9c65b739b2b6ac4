"""linearize over code that runs a transformation inside (fwdad.grad, fwdad.jvp) on
functions that write into their arguments: lin(t) against central differences.

The inner transformation runs its function once per direction on copies of the
arguments, and jvp copies the tangents it is given; under linearize those tangents are
recorded (`Linear`, fwdad/recording.py), and each copy must be one on the tape: a shared
tangent let one run's write reach the next run's when lin replayed them, and a tangent
copied with its tape lost what was recorded on the copy (found by the fuzzer's lingrad
oracle: tests/fuzz/nested_oracles.py)."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close, fd_jvp

X = np.array([[0.3, -0.5, 0.7], [1.1, 0.2, -0.9]])
T = np.array([[1.0, 0.5, -0.25], [-0.4, 0.8, 0.3]])


def shift_then_fortran(x):
    """An overlapping shift written into the argument, then a copy in Fortran order
    (the inner grad then runs one forward pass per entry: fwdad/nesting.py)."""
    x[:, 1:] = x[:, :-1]
    return np.sum(np.sin(np.asfortranarray(x)))


def writes_first_entry(x):
    x[0, 0] = 2.0 * x[0, 1]
    return np.sin(x)


def gradient(x):
    return fwdad.grad(shift_then_fortran)(x)


def gradient_times_argument(x):
    """x is read after the inner grad wrote into it: its tangent must be the write's."""
    g = fwdad.grad(shift_then_fortran)(x)
    return g * x


def jvp_along_argument(x):
    return fwdad.jvp(writes_first_entry, (x,), (x * 1.0,))[1] + x


def jvp_at_a_copy(x):
    return fwdad.jvp(writes_first_entry, (x * 1.0,), (x,))[1] + x


@pytest.mark.parametrize("fn", [gradient, gradient_times_argument, jvp_along_argument,
                                jvp_at_a_copy], ids=lambda f: f.__name__)
def test_linearize_of_a_transformation_of_a_function_that_writes_its_argument(fn):
    want = fd_jvp(fn, (X.copy(),), (T,))
    out, lin = fwdad.linearize(fn, X.copy())
    assert_close(out, fn(X.copy()), rtol=1e-12, atol=1e-12)
    assert_close(lin(T.copy()), want, rtol=1e-6, atol=1e-8)
    assert_close(lin(T.copy()), fwdad.jvp(fn, (X.copy(),), (T.copy(),))[1],
                 rtol=1e-10, atol=1e-12)  # (and replayed again: the same)


def test_linearize_of_grad_itself():
    """The fuzzer's shape of it: linearize(grad(f)) against hvp."""
    want = fwdad.hvp(shift_then_fortran, (X.copy(),), (T.copy(),))[0]
    lin = fwdad.linearize(fwdad.grad(shift_then_fortran), X.copy())[1]
    assert_close(lin(T.copy()), want, rtol=1e-10, atol=1e-12)
    assert_close(want, fd_jvp(fwdad.grad(shift_then_fortran), (X.copy(),), (T,)),
                 rtol=1e-6, atol=1e-8)


def complex_inside(x):
    z = x * (1.0 + 2.0j)
    return np.sum(np.real(z * np.conj(z)) * np.sin(x))


def test_transpose_of_linearize_of_grad_with_complex_values_inside():
    """Complex intermediates send lin.T to reverse mode's pullback, which refuses an
    inner grad; with real arguments and output lin is a real matrix, and lin.T takes
    its transpose (a Hessian: symmetric, so central differences of grad along c)."""
    x, c = X[0].copy(), T[0].copy()
    gradient = fwdad.grad(complex_inside)
    lin = fwdad.linearize(gradient, x.copy())[1]
    want = fd_jvp(gradient, (x.copy(),), (c,))
    assert_close(lin.T(c.copy())[0], want, rtol=1e-6, atol=1e-8)
    batch = lin.T(np.stack([c, 2.0 * c]))[0]
    assert_close(batch, np.stack([want, 2.0 * want]), rtol=1e-6, atol=1e-8)
