"""An array <op> an instance of a user class with a Python reflected method: NumPy
calls that method once with the whole array only where ndarray's operator defers
(`__array_ufunc__ = None`, or a higher `__array_priority__`); else it calls it for each
item, into an object array, and in place never defers. Both modes differentiate the
first and refuse the others, at the user's line (fwdad/core/numpy_binops.py); they
used to call the method once on the whole array there: another primal, silently."""
from __future__ import annotations

import numpy as np
import pytest

import fwdad
from fwdad.errors import NonDifferentiableError
from tests.util import assert_close, fd_jvp

X, T = np.array([0.3, 0.4, -0.2]), np.array([1.0, -0.5, 2.0])


class Summing:
    def __radd__(self, other):
        return np.sum(other * other)


class Deferring(Summing):
    __array_ufunc__ = None


class Prior(Summing):
    __array_priority__ = 20.0


def item_by_item(x):
    return np.sum(np.sin(x) + Summing())


def in_place(x):
    y = x * 2.0
    y += Summing()
    return np.sum(y)


def deferred(x):
    return (np.sin(x) + Deferring()) * 3.0


def prior(x):
    return (np.sin(x) + Prior()) * 3.0


def from_a_float(x):
    return x[0] + Summing()  # (a NumPy float on the left: the method gets it, once)


@pytest.mark.parametrize("f", [item_by_item, in_place])
@pytest.mark.parametrize("mode", ["jvp", "grad"])
def test_numpy_looping_over_items_is_refused_at_the_users_line(f, mode):
    with pytest.raises(NonDifferentiableError, match=r"test_numpy_binops\.py:\d+.*"
                                                      r"__array_ufunc__ = None"):
        if mode == "jvp":
            fwdad.jvp(f, (X.copy(),), (T,))
        else:
            fwdad.grad(f)(X.copy())


@pytest.mark.parametrize("f", [deferred, prior, from_a_float])
def test_a_method_numpy_calls_once_is_differentiated(f):
    out, tangent = fwdad.jvp(f, (X.copy(),), (T,))
    assert_close(out, f(X.copy()))
    assert_close(tangent, fd_jvp(f, [X.copy()], [T]), rtol=1e-6)
    scalar = (lambda x: np.sum(f(x))) if np.ndim(out) else f
    assert_close(np.sum(fwdad.grad(scalar)(X.copy()) * T),
                 np.sum(fd_jvp(f, [X.copy()], [T])), rtol=1e-6)
