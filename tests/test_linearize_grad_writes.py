"""linearize(grad(f)) and batched_jvp(grad(f)) where f writes into an array it made
(`m = x * 1.0; m[0] = v`): the write widens the first-order tangent of m to hold the
recorded (or batched) second-order one, which it may only do when nothing else holds
that tangent (fwdad/rules/widening.py). fwdad's own rule code, differentiated at level
2, must hold no dead temporary of it: a temporary read only inside an `if` of the
setitem rule kept it alive, and every such write was refused (the cleanup now frees
the temporaries of nested blocks: fwdad/forward/optimizer/cleanup.py). Where the tangent
really is shared (a view of the array, a list holding it), the derivative must still be
right, or refused. References: central differences of fwdad.grad, and fwdad.hessian."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import SharedTangentError
from tests.util import central_gradient, central_jacobian


def write_from_another_entry(x):
    m = x * 1.0
    m[0] = np.tanh(m[1])
    return np.sum(m ** 2)


def write_in_a_loop(x):
    m = x * 2.0
    for i in range(2):
        if x[i] > 0:
            m[i] = np.tanh(m[i + 1]) * x[0]
    return np.sum(m ** 2)


def write_a_product(x):
    m = np.exp(x)
    m[2] = m[0] * m[1]
    return np.sum(np.sin(m))


def write_a_slice(x):
    m = x * x
    m[1:] = np.cos(m[:2]) * x[0]
    return np.sum(m ** 3)


def write_then_view(x):
    m = x * 1.0
    v = m[:2]
    m[0] = np.tanh(m[1])
    return np.sum(m ** 2) + np.sum(v ** 3)


def write_through_a_view(x):
    m = x * 1.0
    v = m[1:]
    v[0] = np.sin(x[0]) * x[2]
    return np.sum(m ** 3)


def write_while_a_list_holds_it(x):
    m = x * 1.0
    box = [m, x]
    m[0] = np.tanh(m[1]) * x[2]
    return np.sum(box[0] ** 2) * x[0]


X = np.array([0.3, 0.7, -0.2])
WRITES = [write_from_another_entry, write_in_a_loop, write_a_product, write_a_slice]
SHARED = [write_then_view, write_through_a_view, write_while_a_list_holds_it]


def _reference(fn, x):
    """The Hessian by central differences of the gradient, column by column."""
    return central_jacobian(fwdad.grad(fn), x)


def _by_linearize(fn, x):
    _, lin = fwdad.linearize(fwdad.grad(fn), x)
    return np.array([lin(e) for e in np.eye(x.size)]).T


def _by_batched_jvp(fn, x):
    return fwdad.batched_jvp(fwdad.grad(fn), (x,), (np.eye(x.size),))[1].T


@pytest.mark.parametrize("fn", WRITES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", [_by_linearize, _by_batched_jvp], ids=["linearize",
                                                                        "batched_jvp"])
def test_second_derivative_through_a_write(fn, mode):
    want = _reference(fn, X.copy())
    np.testing.assert_allclose(mode(fn, X.copy()), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fwdad.hessian(fn)(X.copy()), want, rtol=1e-6, atol=1e-6)


def test_the_gradient_is_right_first():
    for fn in WRITES + SHARED:
        np.testing.assert_allclose(fwdad.grad(fn)(X.copy()),
                                   central_gradient(fn, X.copy()), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", SHARED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", [_by_linearize, _by_batched_jvp], ids=["linearize",
                                                                        "batched_jvp"])
def test_a_shared_tangent_is_right_or_refused(fn, mode):
    try:
        got = mode(fn, X.copy())
    except SharedTangentError as err:
        assert "x[i] = v" in str(err) and __file__ in str(err)
        return
    np.testing.assert_allclose(got, _reference(fn, X.copy()), rtol=1e-6, atol=1e-6)
