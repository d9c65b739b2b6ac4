"""The methods of ufuncs (accumulate, reduce, reduceat, outer, at) under forward over
reverse (hessian, jacfwd(grad), hvp) and reverse mode, with a variable and with a
constant array as their operand, against central differences of forward mode's gradient.

The reverse rules of maximum/minimum.accumulate and add.reduceat, and add.at's sum of
the values it adds, named np.ufunc.accumulate, np.ufunc.reduceat and np.ufunc.at as what
they compute, but without the ufunc those take first: a constant operand ran
np.ufunc.accumulate(x, axis) (grad: a TypeError; hessian: the pass on Duals handed x to
the frule as the ufunc, an InternalErrorWarning, fuzz seed 100,169,196)."""
import warnings

import numpy as np
import pytest

import fwdad
from tests.util import assert_close, central_gradient, central_jacobian

C = np.array([[0.59, 0.31, 0.56], [-0.98, 0.64, 0.46]])  # a constant operand
X = np.array([0.3, -0.7, 1.1])


def _add_at_into_constant(x, c):
    a = c.copy()
    np.add.at(a, (0, [0, 0, 2]), x)
    return np.sum(np.sin(a))


def _add_at_of_constant(x, c):
    a = x * 1.0
    np.add.at(a, [0, 0, 1], c[0])
    return np.sum(np.sin(a) * x)


def _add_at_of_a_list(x, c):
    a = x * 1.0
    np.add.at(a, [0, 0, 1], [x[0], x[1], 2.0])  # (a list of variables: read as an array)
    return np.sum(np.sin(a))


def _add_at_of_a_list_into_constant(x, c):
    a = c[1] * 1.0
    np.add.at(a, [0, 0, 1], (x[0], 2.0, x[2]))
    return np.sum(np.sin(a * x))


def _multiply_at(x, c):
    a = x * 1.0
    np.multiply.at(a, [0, 0, 1], c[0])
    return np.sum(np.sin(a))


def _multiply_at_into_constant(x, c):
    a = c[0] * 1.0
    np.multiply.at(a, [0, 0, 1], x)
    return np.sum(np.sin(a))


def _negative_at(x, c):
    a = x * 1.0
    np.negative.at(a, [0, 0, 1])
    return np.sum(np.sin(a) * x)


CASES = {
    "add.accumulate": lambda x, c: np.sum(np.sin(np.add.accumulate(x * c[0]))),
    "maximum.accumulate": lambda x, c: np.sum(np.maximum.accumulate(x * c[0]) ** 2),
    "minimum.accumulate of a constant":
        lambda x, c: x[0] ** 2 * np.sum(np.minimum.accumulate(c, axis=1)),
    "maximum.accumulate of a constant":
        lambda x, c: np.sum(x ** 3) + np.sum(np.maximum.accumulate(c, axis=-1)),
    "multiply.accumulate of a constant":
        lambda x, c: x[0] ** 2 * np.sum(np.multiply.accumulate(c, axis=0)),
    "maximum.reduce": lambda x, c: np.sum(np.maximum.reduce(x * c, axis=-1) ** 2),
    "maximum.reduce of a constant":
        lambda x, c: x[0] ** 2 * np.sum(np.maximum.reduce(c, axis=-1)),
    "add.reduce with initial": lambda x, c: np.sum(np.add.reduce(x ** 2, initial=x[0]) ** 2),
    "add.reduceat": lambda x, c: np.sum(np.sin(np.add.reduceat(x * c[1], [0, 2]))),
    "add.reduceat of a constant":
        lambda x, c: x[1] ** 2 * np.sum(np.add.reduceat(c, [0, 2], axis=1)),
    "multiply.outer": lambda x, c: np.sum(np.sin(np.multiply.outer(x, x))),
    "multiply.outer of constants":
        lambda x, c: x[1] ** 2 * np.sum(np.multiply.outer(c[0], c[1])),
    "subtract.outer": lambda x, c: np.sum(np.sin(np.subtract.outer(c[0], x))),
    "add.at into a constant": _add_at_into_constant,
    "add.at of a constant": _add_at_of_constant,
    "add.at of a list": _add_at_of_a_list,
    "add.at of a list into a constant": _add_at_of_a_list_into_constant,
    "multiply.at": _multiply_at,
    "multiply.at into a constant": _multiply_at_into_constant,
    "negative.at": _negative_at,
}


def _gradient(f):
    """Forward mode's gradient in x (no reverse pass): the reference's derivative."""
    return lambda x: fwdad.jacfwd(f)(x, C)


SECOND_ORDER = {
    "hessian": lambda f, x: fwdad.hessian(f)(x, C),
    "jacfwd(grad)": lambda f, x: fwdad.jacfwd(fwdad.grad(f))(x, C),
}


@pytest.mark.parametrize("way", SECOND_ORDER)
@pytest.mark.parametrize("name", CASES)
def test_second_order(name, way):
    """No fallback warned of (warnings are errors), and the Hessian is right."""
    f = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = SECOND_ORDER[way](f, X.copy())
    assert_close(got, central_jacobian(_gradient(f), X), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", CASES)
def test_hvp(name):
    f = CASES[name]
    t = np.array([0.4, -1.0, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = fwdad.hvp(f, (X.copy(), C), (t, np.zeros_like(C)))[0]
    assert_close(got, central_jacobian(_gradient(f), X) @ t, rtol=1e-6, atol=1e-7)


# Reverse mode refuses a variable written into an array computed from constants (the
# second order falls back to forward over forward, a refusal: no warning).
WRITES_INTO_A_CONSTANT = {"add.at of a list into a constant", "multiply.at into a constant"}


@pytest.mark.parametrize("name", CASES)
def test_gradient(name):
    """Reverse mode alone, with the constant operand: grad against central differences
    of f."""
    f = CASES[name]
    if name in WRITES_INTO_A_CONSTANT:
        with pytest.raises(fwdad.FwdadError, match="written into a constant array"):
            fwdad.grad(f)(X.copy(), C)
        return
    assert_close(fwdad.grad(f)(X.copy(), C), central_gradient(lambda x: f(x, C), X),
                 rtol=1e-6, atol=1e-8)
