"""Empty arrays (shape (0, ...), what a filter that keeps nothing gives) as the
arguments of whole Jacobians and Hessians, and the NumPy functions whose result at one
is NumPy's own special case. tests/rules/test_edge_inputs.py sweeps every rule at
empty arguments; these check what that sweep does not: the Jacobians' shapes, and
values."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError


def elementwise(x):
    return np.sin(x) * 2.0


def total(x):
    return np.sum(x ** 2)


def padded(x):
    return np.concatenate([np.ravel(x), np.ones(2)])


def scaled(x, y):
    return np.sum(x) * y + y ** 2


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0)], ids=str)
@pytest.mark.parametrize("f", [elementwise, total, padded], ids=lambda f: f.__name__)
def test_jacobians_of_an_empty_argument_are_empty_and_agree(f, shape):
    """Shaped out.shape + x.shape (hessian: + x.shape again), in all three (jacfwd
    refused an empty argument as one that holds no floats)."""
    x = np.zeros(shape)
    out = np.shape(f(x))
    assert fwdad.jacfwd(f)(x).shape == out + shape
    assert fwdad.jacrev(f)(x).shape == out + shape
    assert fwdad.hessian(f)(x).shape == out + shape + shape


@pytest.mark.parametrize("jacobian", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
def test_an_empty_argument_beside_others(jacobian):
    """The empty argument's block is empty; the other's is d(y^2)/dy = 2 diag(y)
    (sum(x) = 0 when x is empty)."""
    x, y = np.zeros((0, 2)), np.array([0.5, -1.0, 2.0])
    dx, dy = jacobian(scaled, argnums=(0, 1))(x, y)
    assert dx.shape == (3, 0, 2)
    np.testing.assert_allclose(dy, 2.0 * np.diag(y), rtol=1e-12)


def test_an_empty_int_array_still_holds_no_floats():
    with pytest.raises(FwdadError, match="hold no floats"):
        fwdad.jacfwd(total)(np.zeros(0, int))


def polymul(a, b):
    return np.polymul(a, b)


def poly(r):
    return np.poly(r)


def test_polymul_at_an_empty_argument_is_numpys_zero_polynomial():
    """NumPy takes an empty coefficient array as the polynomial 0 ([0.]): the product is
    zeros, and so is its derivative in b."""
    a, b = np.zeros(0), np.array([1.0, 2.0, 3.0])
    out, tangent = fwdad.jvp(polymul, (a, b), (a, np.ones(3)))
    np.testing.assert_array_equal(out, np.polymul(a, b))
    np.testing.assert_array_equal(tangent, np.zeros(3))
    np.testing.assert_array_equal(fwdad.grad(lambda b: np.sum(polymul(a, b)))(b),
                                  np.zeros(3))


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_polymul_refuses_a_leading_zero(mode):
    """NumPy drops leading zero coefficients, so the result is shorter at a[0] = 0 than
    anywhere near it: no derivative (fwdad returned the longer np.convolve before)."""
    a, b = np.array([0.0, 1.0, 2.0]), np.array([1.0, 1.0])
    with pytest.raises(FwdadError, match="leading zero"):
        if mode == "jvp":
            fwdad.jvp(polymul, (a, b), (np.ones(3), np.ones(2)))
        else:
            fwdad.vjp(polymul, a, b)


def test_poly_of_no_roots_is_numpys_float_one():
    """In both modes (reverse mode's gave array([1.]))."""
    out, tangent = fwdad.jvp(poly, (np.zeros(0),), (np.zeros(0),))
    assert out == np.poly(np.zeros(0)) == 1.0 and np.ndim(out) == 0 and tangent == 0.0
    out, pullback = fwdad.vjp(poly, np.zeros(0))
    assert out == 1.0 and np.ndim(out) == 0
    assert pullback(1.0)[0].shape == (0,)
