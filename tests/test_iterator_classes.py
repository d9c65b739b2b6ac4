"""`for` loops over an iterator written as a class (`__iter__` returns the instance,
`__next__` computes each item and raises StopIteration) and over `np.ndindex`: found
while writing the fuzzer's functional construct (tests/fuzz/functional.py). Forward mode ran the
rule of `__iter__` again on what it returned (the instance itself) until Python's
recursion limit; reverse mode ran `__next__` as plain code on its variables (a
TypeError from NumPy); `np.ndindex` (a library class, made from constants) took the
first way too. Each mode is checked against central differences; third derivatives
through an iterator class are refused, naming the loop."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close, fd_jvp

X = np.array([0.3, -0.2, 0.5])
T = np.array([1.0, 0.5, -0.25])


class Steps:
    """An iterator: each item is one more step of a map applied to the first."""

    def __init__(self, a, n):
        self.a = a
        self.n = n
        self.k = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.k >= self.n:
            raise StopIteration
        self.k += 1
        self.a = np.sin(self.a) + self.a * 0.5
        return self.a * self.k


class Series:
    """A container whose __iter__ returns an iterator of another class."""

    def __init__(self, a):
        self.a = a

    def __iter__(self):
        return Steps(self.a * 0.5, 2)


def over_steps(x):
    total = 0.0
    for v in Steps(x * 1.5, 3):
        total = total + np.sum(v * v)
    for v in Series(x):
        total = total + np.sum(np.cos(v))
    return total


def left_early(x):  # a loop left by break: the iterator is not used up
    steps = Steps(x, 5)
    total = 0.0
    for v in steps:
        total = total + np.sum(v)
        if steps.k == 2:
            break
    return total + np.sum(steps.a) * steps.k


def over_indices(x):
    m = np.outer(x, np.sin(x))
    out = np.zeros((3, 3))
    for index in np.ndindex(m.shape):
        out[index] = m[index] * 2.0 + x[index[0]]
    total = 0.0
    for i, j in np.ndindex(3, 3):
        total = total + m[i, j] * np.cos(m[j, i])
    return np.sum(out * m) + total


FUNCTIONS = [over_steps, left_early, over_indices]


@pytest.mark.parametrize("f", FUNCTIONS)
def test_jvp_and_grad(f):
    out, tangent = fwdad.jvp(f, (X,), (T,))
    assert_close(out, f(X), rtol=1e-12)
    assert_close(tangent, fd_jvp(f, (X,), (T,)), rtol=1e-6)
    assert_close(fwdad.grad(f)(X) @ T, tangent, rtol=1e-10)


@pytest.mark.parametrize("f", FUNCTIONS)
def test_second_order(f):
    want = fd_jvp(fwdad.grad(f), (X,), (T,))
    assert_close(fwdad.hessian(f)(X) @ T, want, rtol=1e-5)
    assert_close(fwdad.jacrev(fwdad.grad(f))(X) @ T, want, rtol=1e-5)


def _second(f):
    return lambda x: fwdad.jvp(lambda y: fwdad.jvp(f, (y,), (T,))[1], (x,), (T,))[1]


def test_third_order():
    got = fwdad.jvp(_second(over_indices), (X,), (T,))[1]
    assert_close(got, fd_jvp(_second(over_indices), (X,), (T,)), rtol=1e-5)


@pytest.mark.parametrize("f", [over_steps, left_early])
def test_third_order_through_an_iterator_class_is_refused(f):
    """(rather than asking to differentiate fwdad's own generator of the items)"""
    with pytest.raises(fwdad.FwdadError, match=f"iterator class.* in {f.__name__} at "
                       f".*test_iterator_classes.py:"):
        fwdad.jvp(_second(f), (X,), (T,))
