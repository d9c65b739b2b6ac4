"""Writes through `.T`, `reshape`, `ravel`, `swapaxes` and `transpose` views of an
array computed only from constants, under the batched and recorded modes.

The array's zero tangent is plain (constants cost no batch work); taking one of these
views in a batched, recorded or second-order call gives the array the context's
tangent first (rules/widening.widen_before_view_of; for a level-2 array, its outer
tangents: forward/nested/attributes.py), so that the batched write through the view
reaches the array. Each was refused with a SharedTangentError before; the bound-method
forms (`a.reshape(-1)`, `a.transpose()`) under hessian first crashed on `np.ravel(())`
of an empty tuple, whose tangent had no batch axis (rules/creation._converted).
"""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close

C = np.arange(6.0).reshape(2, 3) * 0.25


def through_dot_t(x):
    a = C * 2.0
    b = a.T
    b[0, 1] = x[0] * 3.0
    return np.sin(a).ravel() * x[1]


def through_a_reshape_method(x):
    a = C * 2.0
    b = a.reshape(-1)
    b[1] = x[0] * x[1]
    return np.sin(a).ravel()


def through_ravel_then_read_after(x):
    a = C + 1.0
    b = a.ravel()
    b[2:4] += x[:2] ** 2
    return np.cos(a).sum(axis=0)


def through_swapaxes(x):
    a = C * 2.0
    b = np.swapaxes(a, 0, 1)
    b[1, 0] = x[1] * 3.0
    return np.tanh(a).ravel()


def through_a_transpose_method(x):
    a = C.copy()
    b = a.transpose()
    b[2, :] = x * x[0]
    return np.sin(a).ravel()


def into_the_array_after_the_view_was_taken(x):
    a = C * 2.0
    b = a.T
    a[0, 1] = x[0] * 3.0
    return np.sin(b).ravel() + x[1]


def through_np_reshape_and_dot_t(x):
    a = C * 0.5
    b = np.reshape(a.T, (6,))   # (a.T is not contiguous: this reshape is a copy)
    b[0] = x[0]
    c = a.T
    c[1, 1] += x[1] * x[0]
    return np.concatenate([np.sin(a).ravel(), b])


FUNCTIONS = [through_dot_t, through_a_reshape_method, through_ravel_then_read_after,
             through_swapaxes, through_a_transpose_method,
             into_the_array_after_the_view_was_taken, through_np_reshape_and_dot_t]
X, T = np.array([0.3, -0.7]), np.array([1.0, -0.5])


def _along(f, api):
    if api == "jacfwd":
        return fwdad.jacfwd(f)(X.copy()) @ T
    if api == "linearize":
        return fwdad.linearize(f, X.copy())[1](T)
    weights = np.linspace(0.5, 1.5, np.size(f(X.copy())))
    return fwdad.hessian(lambda x: weights @ f(x))(X.copy()) @ T


def _reference(f, api, h=1e-5):
    if api != "hessian":
        return (f(X + h * T) - f(X - h * T)) / (2 * h)
    weights = np.linspace(0.5, 1.5, np.size(f(X.copy())))
    jac = fwdad.jacfwd(lambda x: weights @ f(x))
    return (jac(X + h * T) - jac(X - h * T)) / (2 * h)


@pytest.mark.parametrize("api", ["jacfwd", "linearize", "hessian"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_batched_write_through_a_view_of_an_array_of_constants(f, api):
    assert_close(_along(f, api), _reference(f, api), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("api", ["jacfwd", "hessian"])
def test_an_array_of_an_empty_tuple_in_a_batched_call(api):
    def f(x):
        return x * x + np.ravel(()).sum() + np.array([]).size

    got = fwdad.jacfwd(f)(X.copy()) if api == "jacfwd" else fwdad.hessian(
        lambda x: f(x).sum())(X.copy())
    assert_close(got, np.diag(2 * X) if api == "jacfwd" else 2 * np.eye(2))
