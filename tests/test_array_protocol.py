"""A user instance that carries a derivative where NumPy reads it as an array (by its
class's `__array__`): np.asarray/np.array, a ufunc, a NumPy function, an operator with
an array on the other side. Its Python `__array__` is differentiated as a derived rule,
in both modes and at second order, called as NumPy calls it (dtype, copy); what is not
modelled (an `__array__` written in C, `__array_ufunc__`, `__array_function__`,
`__array_priority__`) is refused at the user's line (fwdad/rules/array_protocol.py)."""
import functools

import numpy as np
import pytest

import fwdad
from fwdad import testing
from fwdad.errors import FwdadError
from tests.util import central_difference


class Box:
    def __init__(self, v):
        self.v = v

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.v, dtype=dtype)


class NoCopy:
    """NumPy 1's signature: no `copy` (NumPy copies after it when asked to)."""

    def __init__(self, v):
        self.v = v

    def __array__(self, dtype=None):
        return self.v * 1.0


class Reflected(Box):
    """`array + r` is NumPy's np.add of r's array: its __radd__ never runs."""

    def __radd__(self, other):
        return "radd"


class OwnAdd(Box):
    """`r + array` runs r's own __add__ first."""

    def __add__(self, other):
        return Box(self.v * 3.0 + other)


class UfuncOverride(Box):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return NotImplemented


class FunctionOverride(Box):
    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented


class _BoundAsarray:
    """A descriptor whose method is np.asarray bound to the field: C code, as a type
    written in C has."""

    def __get__(self, obj, cls):
        return self if obj is None else functools.partial(np.asarray, obj.v)


class CArray:
    """__array__ is not Python code: nothing to differentiate."""

    def __init__(self, v):
        self.v = v

    __array__ = _BoundAsarray()


def asarray_then_ufunc(x):  # the brief's example
    return np.sum(np.sin(np.asarray(Box(x * 2.0))))


def ufunc_of_instance(x):
    return np.exp(Box(x)) * x


def function_of_instance(x):
    return np.cumsum(Box(x * x)) + np.dot(Box(x), Box(x))


def array_plus_instance(x):
    return x + Reflected(x * x)


def instance_plus_array(x):
    return Box(np.sin(x)) * x - x / Box(x + 2.0)


def own_add_first(x):
    return np.asarray(OwnAdd(x) + x)


def without_copy_parameter(x):
    return np.array(NoCopy(x * x)) + np.asarray(NoCopy(x), dtype=np.float64)


def in_place_update(x):
    y = x.copy()
    y += Box(x * x)
    y *= Box(x)
    return y


def nested_instance(x):
    return np.tanh(np.array(Box(Box(x * 2.0)))) ** 2


def with_dtype(x):
    return np.array(Box(x * 3.0), dtype=np.float64, ndmin=2)


PROGRAMS = [asarray_then_ufunc, ufunc_of_instance, function_of_instance,
            array_plus_instance, instance_plus_array, own_add_first,
            without_copy_parameter, in_place_update, nested_instance, with_dtype]
X, T = np.array([0.3, 0.7]), np.array([1.0, -0.5])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_array_protocol_matches_finite_differences_and_the_other_mode(f):
    testing.test_rule(f, X)  # jvp against central differences, vjp by the dot-product test, batch


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_array_protocol_at_second_order(f):
    def scalar(x):
        return np.sum(f(x))
    grad = fwdad.grad(scalar)
    hessian = fwdad.hessian(scalar)(X)
    np.testing.assert_allclose(hessian @ T, central_difference(grad, X, T), rtol=1e-6, atol=1e-8)


def test_np_array_keeps_what_array_gives_as_numpy_does():
    """Box's __array__ takes `copy`, so np.array(b) is the very array it gives (NumPy
    trusts it); NoCopy's does not, and np.array copies it: a write through the result
    reaches x (and its tangent) in the first case only."""
    def writes_through(x):
        a = np.array(Box(x))
        a[0] = a[1] * 3.0
        b = np.array(NoCopy(x))
        b[1] = 0.0
        return x * b

    y = np.array([0.3, 0.7])
    assert np.array(Box(y)) is y and np.array(NoCopy(y)) is not y
    testing.test_rule(writes_through, X)
    out, tangent = fwdad.jvp(writes_through, (X.copy(),), (T,))
    np.testing.assert_allclose(out, [2.1 * 2.1, 0.0])
    np.testing.assert_allclose(tangent, [2 * 2.1 * 3 * T[1], 0.0])


def test_a_dtype_reaches_array_and_casts():
    def cast(x):
        return np.asarray(Box(x), dtype=np.float32)

    out, tangent = fwdad.jvp(cast, (X,), (T,))
    assert out.dtype == tangent.dtype == np.float32
    np.testing.assert_array_equal(tangent, T.astype(np.float32))
    np.testing.assert_array_equal(fwdad.vjp(cast, X)[1](np.ones(2, np.float32))[0], 1.0)


@pytest.mark.parametrize("cls, why", [
    (UfuncOverride, "defines __array_ufunc__"),
    (FunctionOverride, "defines __array_function__"),
    (CArray, "not Python code")], ids=lambda v: getattr(v, "__name__", ""))
def test_what_is_not_modelled_is_refused_at_the_users_line(cls, why):
    def f(x):
        return np.sum(np.asarray(cls(x)))

    for run in (lambda: fwdad.jvp(f, (X,), (T,)), lambda: fwdad.grad(f)(X)):
        with pytest.raises(FwdadError, match=why) as info:
            run()
        assert "<locals>.f at " in str(info.value) and "test_array_protocol.py:" in str(
            info.value)


MODES = {
    "jacfwd": lambda f: fwdad.jacfwd(f)(X) @ T,
    "jacrev": lambda f: fwdad.jacrev(f)(X) @ T,
    "linearize": lambda f: fwdad.linearize(f, X)[1](T),
    "sparse": lambda f: fwdad.sparse_jacfwd(f)(X).toarray() @ T,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [asarray_then_ufunc, array_plus_instance, in_place_update],
                         ids=lambda f: f.__name__)
def test_array_protocol_in_each_mode(f, mode):
    def vector(x):
        return np.atleast_1d(f(x))
    np.testing.assert_allclose(MODES[mode](vector), central_difference(vector, X, T), rtol=1e-7,
                               atol=1e-9)


def test_an_instance_without_a_derivative_is_numpys_to_read():
    def f(x):
        return x * np.sum(np.asarray(CArray(np.ones(2)))) + np.sin(CArray(np.ones(2)))

    np.testing.assert_allclose(fwdad.jvp(f, (X,), (T,))[1], 2.0 * T)
    np.testing.assert_allclose(fwdad.grad(lambda x: np.sum(f(x)))(X), [2.0, 2.0])
    np.testing.assert_allclose(fwdad.jacfwd(f)(X), 2.0 * np.eye(2))


def joined_instances(x):
    return np.concatenate([Box(x), Box(x * 2.0)]) * np.stack((Box(x), NoCopy(x)))[1, 0]


def array_of_instances(x):
    return np.sum(np.array([Box(x), Box(np.sin(x))]) ** 2, axis=0) + np.asarray(
        [[NoCopy(x)], (Box(x),)])[1, 0]


@pytest.mark.parametrize("f", [joined_instances, array_of_instances],
                         ids=lambda f: f.__name__)
def test_instances_inside_a_list_numpy_reads(f):
    """np.array of a list of instances, and the joining functions (concatenate, stack),
    read each item by its __array__."""
    testing.test_rule(f, X)
    np.testing.assert_allclose(fwdad.jacrev(f)(X) @ T, central_difference(f, X, T), rtol=1e-7,
                               atol=1e-9)
    test_array_protocol_at_second_order(f)
