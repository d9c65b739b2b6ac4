"""A helper decorated with `functools.wraps` whose wrapper changes the arguments or
the result (found while writing the fuzzer's functional construct, tests/fuzz/functional.py):
fwdad followed `__wrapped__` to the undecorated function and differentiated that, so
the primal and every derivative silently left the wrapper out. The wrapper's own code
is what runs; a wrapper without Python code (functools.lru_cache's, a callable
instance that keeps `__wrapped__`) is still seen through exactly. Each mode is checked
against central differences or the closed form."""
import functools

import numpy as np
import pytest

import fwdad
from tests.util import assert_close, fd_jvp

X = np.array([0.3, -0.2, 0.5])
T = np.array([1.0, 0.5, -0.25])


def scaled(k):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(a, *rest, **keywords):
            return fn(a * k, *rest, **keywords) + k * a
        return wrapper
    return decorate


@scaled(0.5)
def tanh_scaled(a, b, c=2.0):
    return np.tanh(a) * b + c * a


def shifted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **keywords):
        return fn(*args, **keywords) * 2.0 + 1.0
    return wrapper


@shifted
@scaled(3.0)
def sine(a):
    return np.sin(a)


class Halved:
    """A class-based decorator: an instance with `__call__` and `__wrapped__`."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn

    def __call__(self, a):
        return self.fn(a * 0.5) * 0.5


@Halved
def cube(a):
    return a * a * a


@functools.lru_cache(maxsize=None)
def cached_sine(a):
    return np.sin(a) * 2.0


def through_wrappers(x):
    return np.sum(tanh_scaled(x, 0.75) + tanh_scaled(x, np.cos(x), c=x) + sine(x) + cube(x))


def closed_form(x):  # through_wrappers, written out
    return np.sum(np.tanh(0.5 * x) * 0.75 + 2.0 * 0.5 * x + 0.5 * x
                  + np.tanh(0.5 * x) * np.cos(x) + x * 0.5 * x + 0.5 * x
                  + (np.sin(3.0 * x) + 3.0 * x) * 2.0 + 1.0 + (0.5 * x) ** 3 * 0.5)


def through_cache(x):
    return np.sum(cached_sine(float(x[0])) * x) + cached_sine(float(x[1]))


def test_the_closed_form_is_the_function():
    assert np.isclose(through_wrappers(X), closed_form(X))


@pytest.mark.parametrize("f", [through_wrappers, through_cache])
def test_jvp_and_vjp_run_the_wrappers(f):
    out, tangent = fwdad.jvp(f, (X,), (T,))
    assert_close(out, f(X), rtol=1e-12)
    assert_close(tangent, fd_jvp(f, (X,), (T,)), rtol=1e-6)
    assert_close(fwdad.grad(f)(X) @ T, tangent, rtol=1e-10)


def test_second_order_runs_the_wrappers():
    want = fwdad.jacfwd(fwdad.grad(closed_form))(X)
    assert_close(fwdad.hessian(through_wrappers)(X), want, rtol=1e-9)
    assert_close(fwdad.jacrev(fwdad.grad(through_wrappers))(X), want, rtol=1e-9)
