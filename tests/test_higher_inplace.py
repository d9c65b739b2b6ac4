"""Second derivatives of functions that write into arrays in place (`out=`, `a *= b`,
np.copyto, `a[...] = v`, ufunc.at), into the argument being differentiated or into
another argument whose tangent is zero: hessian and hvp against central finite
differences of the gradient (each evaluation on fresh copies: the functions mutate their
arguments).

At level 2 the rule code reads `x.primal` and `x.tangent` of a Dual as fields of an
object; the write must reach the outer tangent those fields stand for (FieldDual in
fwdad/rules/batching.py), including a field that was a symbolic zero."""
import copy
import math

import numpy as np
import pytest

import fwdad
from fwdad.tangents import zero_tangent
from tests.util import fd_jvp


def out_into_argument(x):
    np.multiply(0.5, x * x, out=x)
    return math.sin(x[1])


def out_into_other_argument(x, y):
    np.add(0.5, x[0] * x[0], out=y)
    return np.sum(y)


def positional_out_into_other_argument(x, y):
    np.subtract(np.sin(x[0]), x[1] * x[0], y)
    return np.sum(y * y)


def reduction_out_into_other_argument(x, y):
    np.sum(x * x, axis=0, out=y)
    return np.sum(np.cos(y))


def out_into_created_constant(x):
    z = np.array([0.25, 0.5, 1.0])
    np.add(0.5, x[0] * x, out=z)
    return np.sum(z * x)


def multiply_in_place(x):
    x *= x
    return np.sum(np.sin(x))


def add_in_place_into_other_argument(x, y):
    y += x[0] * x
    return np.sum(y * y)


def divide_in_place_on_a_view(x):
    v = x[1:]
    v /= 1.0 + x[:2] ** 2
    return np.sum(x ** 3)


def copyto_argument(x):
    np.copyto(x, np.exp(x))
    return x[0] * x[2]


def copyto_other_argument(x, y):
    np.copyto(y, x * x[1], where=np.array([True, False, True]))
    return np.prod(y)


def setitem_all_of_other_argument(x, y):
    y[...] = x * x
    return np.sum(y * x)


def setitem_one_of_argument(x):
    x[0] = x[1] * x[2]
    return np.sum(x ** 2)


def ufunc_at_into_other_argument(x, y):
    np.add.at(y, [0, 0, 2], x * x)
    return np.sum(np.sin(y))


def out_into_argument_then_multiply_other(x, y, c):
    np.add(x, x, out=x)  # the argument is the input and the output
    y *= x  # y's zero tangent is shared at level 2: jacfwd passes again
    return np.exp(np.sum(y))


class Holder:
    def __init__(self, a):
        self.a = a


def out_into_field_of_other_argument(x, holder):
    np.multiply(x, x[2], out=holder.a)
    return np.sum(holder.a ** 2)


X = np.array([0.3, -0.7, 1.1])
PROGRAMS = [  # (function, arguments): hessian and hvp with respect to the first
    (out_into_argument, (X,)),
    (out_into_other_argument, (np.arange(6.0).reshape(2, 3) * 0.3, np.ones(3))),
    (positional_out_into_other_argument, (X, np.ones(3))),
    (reduction_out_into_other_argument, (np.arange(6.0).reshape(2, 3) * 0.3, np.ones(3))),
    (out_into_created_constant, (X,)),
    (multiply_in_place, (X,)),
    (add_in_place_into_other_argument, (X, np.array([0.5, 1.0, -2.0]))),
    (divide_in_place_on_a_view, (X,)),
    (copyto_argument, (X,)),
    (copyto_other_argument, (X, np.array([2.0, 3.0, 4.0]))),
    (setitem_all_of_other_argument, (X, np.zeros(3))),
    (setitem_one_of_argument, (X,)),
    (ufunc_at_into_other_argument, (X, np.array([0.5, 1.0, -2.0]))),
    (out_into_argument_then_multiply_other, (X * 0.3, np.array([0.1, -0.5, 0.3]), 0.5)),
    pytest.param(out_into_field_of_other_argument, (X, Holder(np.zeros(3))),
                 marks=pytest.mark.xfail(
        raises=fwdad.errors.SharedTangentError, strict=True,
        reason="at second order an object argument's field tangent has no batch axis: "
               "the batched write is refused (SharedTangentError), not silently lost")),
]


def _gradient(f, args):
    """x -> d f / d(first argument), by one jvp per entry of x (a batched jacfwd refuses
    a write into a field of an object passed in), each call on copies of the arguments."""
    zeros = [zero_tangent(a) for a in args[1:]]

    def gradient(x):
        return np.array([fwdad.jvp(f, (x.copy(), *copy.deepcopy(args[1:])),
                                   (e.reshape(x.shape), *zeros))[1]
                         for e in np.eye(x.size)]).reshape(x.shape)
    return gradient


def _fd_hessian(f, args):
    x = args[0]
    gradient = _gradient(f, args)
    columns = [fd_jvp(gradient, (x,), (e.reshape(x.shape),), h=1e-5)
               for e in np.eye(x.size)]
    return np.stack(columns, axis=-1).reshape(x.shape + x.shape)


@pytest.mark.parametrize("f, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_hessian_of_in_place_program_matches_finite_differences(f, args):
    hess = fwdad.hessian(f)(*copy.deepcopy(args))
    np.testing.assert_allclose(hess, _fd_hessian(f, args), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_hvp_of_in_place_program_matches_finite_differences(f, args):
    v = np.linspace(-0.5, 1.0, args[0].size).reshape(args[0].shape)
    zeros = [zero_tangent(a) for a in args[1:]]
    (hv, *_) = fwdad.hvp(f, copy.deepcopy(args), (v, *zeros))
    want = fd_jvp(_gradient(f, args), (args[0],), (v,), h=1e-5)
    np.testing.assert_allclose(hv, want, rtol=1e-6, atol=1e-7)


def test_the_direction_of_a_directional_derivative_is_not_written_into():
    """jvp copies its tangents; so does the level-2 jvp of hessian and hvp: a function
    that writes into its argument writes into its own copy of the direction."""
    direction = np.array([0.2, 0.5, -0.4])
    d = fwdad.higher.Directional(out_into_argument, [direction])
    fwdad.jvp(d, (X.copy(),), (direction,))
    np.testing.assert_array_equal(direction, [0.2, 0.5, -0.4])
